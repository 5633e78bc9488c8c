import type { LevelName } from './levels.ts';

/** One log record, Monolog-shaped. `context` values are already masked where they hold secrets. */
export interface LogRecord {
  datetime: Date;
  channel: string;
  level: number;
  levelName: LevelName;
  message: string;
  context: Record<string, unknown>;
  extra: Record<string, unknown>;
}

/** PSR-3 interpolation: `{key}` replaced by scalar context values, as Monolog's PsrLogMessageProcessor. */
export function interpolate(message: string, context: Record<string, unknown>): string {
  if (!message.includes('{')) return message;
  return message.replace(/\{([A-Za-z0-9_.]+)\}/g, (whole, key: string) => {
    const v = context[key];
    if (v === null || v === undefined) return v === null ? '' : whole;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    if (v instanceof Date) return v.toISOString();
    return whole;
  });
}
