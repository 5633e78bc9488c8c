/**
 * Reading request data that may be odd without letting it throw (a profile never fails for it):
 * `attempt` falls back to a default, `asRecord` keeps plain objects only. Shared by collect.ts and
 * request-parts.ts.
 */

export function attempt<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

export function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
