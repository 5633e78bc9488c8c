/** Monolog's levels: numeric values and names are what JSON log lines carry. */
export const LEVELS = {
  debug: 100,
  info: 200,
  notice: 250,
  warning: 300,
  error: 400,
  critical: 500,
  alert: 550,
  emergency: 600,
} as const;

export type LevelName = keyof typeof LEVELS;
