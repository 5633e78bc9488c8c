import { isoString } from '../debug/error-page/iso-date.ts';
import { throwSite } from '../debug/stack.ts';
import { classNameOf, FrameworkError } from '../kernel/exceptions.ts';
import { interpolate, type LogRecord } from './record.ts';
import { maskForDisplay } from '../debug/profiler/mask.ts';

export type LogFormat = 'line' | 'json';

/** JSON-safe view of a context value: errors become Monolog's `[object] (Class(code: 0): msg at file:line)`. */
export function contextToJson(value: unknown, depth = 0, seen: Set<unknown> = new Set()): unknown {
  if (value instanceof Error) return describeError(value);
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'function') return '[function]';
    return value;
  }
  if (value instanceof Date) return value.toISOString();
  if (depth > 8 || seen.has(value)) return '[...]';
  seen.add(value);
  if (Array.isArray(value)) return value.slice(0, 200).map((v) => contextToJson(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key of Object.keys(value)) {
    if (n++ >= 200) break;
    try {
      out[key] = contextToJson((value as Record<string, unknown>)[key], depth + 1, seen);
    } catch {
      out[key] = '[unreadable]';
    }
  }
  return out;
}

/** How many previous exceptions a context's exception string lists (Monolog aborts deeper chains too). */
export const MAX_PREVIOUS_EXCEPTIONS = 10;

/**
 * Monolog's normalizeException: `[object] (Class(code: 0): message at file:line)`, then one
 * `\n[previous exception] [object] (…)` per previous exception (`previous`, or `cause` for other
 * errors), innermost last — symfony-reference §5.1. The file is the source-mapped absolute path.
 * Bounded (MAX_PREVIOUS_EXCEPTIONS, then Monolog's "Over N levels deep" line) and cycle-safe.
 */
function describeError(error: Error): string {
  let out = describeOne(error);
  const seen = new Set<unknown>([error]);
  let current: unknown = previousOf(error);
  for (let depth = 1; current instanceof Error && !seen.has(current); depth++) {
    if (depth > MAX_PREVIOUS_EXCEPTIONS) {
      out += `\n[previous exception] Over ${MAX_PREVIOUS_EXCEPTIONS} levels deep, aborting normalization`;
      break;
    }
    seen.add(current);
    out += `\n[previous exception] ${describeOne(current)}`;
    current = previousOf(current);
  }
  return out;
}

/** One exception as Monolog's formatException prints it. */
function describeOne(error: Error): string {
  try {
    const site = throwSite(error);
    return `[object] (${classNameOf(error)}(code: 0): ${error.message}${site ? ` at ${site.file}:${site.line}` : ''})`;
  } catch {
    return `[object] (${classNameOf(error)})`;
  }
}

/** The exception an error wraps: a framework error's `previous`, any other error's `cause`; a hostile getter ends the chain. */
function previousOf(error: Error): unknown {
  try {
    return error instanceof FrameworkError ? error.previous : (error as { cause?: unknown }).cause;
  } catch {
    return undefined;
  }
}

/** Monolog's datetime shape: 2026-11-22T10:11:12.123456+00:00. */
export function monologDate(d: Date): string {
  const iso = isoString(d);
  if (iso !== lastIso) {
    lastMonolog = iso.replace(/\.(\d{3})Z$/, '.$1000+00:00');
    lastIso = iso;
  }
  return lastMonolog;
}

/** The last date written: the records of a request share their millisecond more often than not. */
let lastIso = '';
let lastMonolog = '';

/** Monolog's LineFormatter without inline line breaks: a message's CR/LF become spaces, one record per line. */
function oneLine(text: string): string {
  return text.includes('\n') || text.includes('\r') ? text.replace(/\r\n|\r|\n/g, ' ') : text;
}

/**
 * The record as a `line` or `json` log line. Its context is masked and scrubbed first (maskForDisplay):
 * an application logs what it likes, the stream never shows a secret.
 */
export function formatRecord(record: LogRecord, format: LogFormat): string {
  const shown = maskForDisplay(record.context) as Record<string, unknown>;
  const context = contextToJson(shown);
  const extra = contextToJson(maskForDisplay(record.extra));
  const message = interpolate(record.message, shown);
  if (format === 'json') {
    return JSON.stringify({
      message,
      context,
      level: record.level,
      level_name: record.levelName.toUpperCase(),
      channel: record.channel,
      datetime: monologDate(record.datetime),
      extra,
    });
  }
  const ctx = JSON.stringify(context);
  const ext = JSON.stringify(extra);
  return `[${monologDate(record.datetime)}] ${oneLine(record.channel)}.${record.levelName.toUpperCase()}: ${oneLine(message)} ${ctx === '{}' ? '[]' : ctx} ${ext === '{}' ? '[]' : ext}`;
}
