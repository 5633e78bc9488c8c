import { isSecretName, maskedField } from '../debug/profiler/mask.ts';
import type { LevelName } from './levels.ts';

/**
 * One log record, Monolog-shaped. `context` is what the caller logged; every place that shows a record
 * (log stream, debug page, profile) masks its secret-named fields and scrubs its strings.
 */
export interface LogRecord {
  datetime: Date;
  channel: string;
  level: number;
  levelName: LevelName;
  message: string;
  context: Record<string, unknown>;
  extra: Record<string, unknown>;
}

/**
 * PSR-3 interpolation: `{key}` replaced by scalar context values, as Monolog's PsrLogMessageProcessor
 * (keys of `[A-Za-z0-9_.]`, left as they are when the value is missing or not a scalar); a secret-named
 * key's value is masked.
 */
export function interpolate(message: string, context: Record<string, unknown>): string {
  if (message.indexOf('{') < 0) return message;
  const parts = templateOf(message);
  if (parts.length === 1) return message;
  // A secret-named placeholder (`{password}`) never prints its value, wherever the message is shown.
  const masks = withSecretKeys.has(parts);
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i]!;
    const raw = context[key];
    const value = placeholderText(masks ? (maskedField(key, raw) ?? raw) : raw);
    out += (value === null ? `{${key}}` : value) + parts[i + 1]!;
  }
  return out;
}

/**
 * Messages with a `{` split into text and placeholder keys (text, key, text, ..., text), by message.
 * Such messages are nearly always the same few literals; a key sliced anew on each call would cost a
 * string-table lookup per placeholder. Bounded: messages may be built from request data.
 */
const templates = new Map<string, readonly string[]>();
/** Templates with a secret-named placeholder, told apart once when parsed (most have none). */
const withSecretKeys = new WeakSet<readonly string[]>();
export const MAX_TEMPLATES = 512;
export const MAX_TEMPLATE_LENGTH = 1024;

function templateOf(message: string): readonly string[] {
  let parts = templates.get(message);
  if (parts !== undefined) return parts;
  parts = parseTemplate(message);
  for (let i = 1; i < parts.length; i += 2) {
    if (isSecretName(parts[i]!)) {
      withSecretKeys.add(parts);
      break;
    }
  }
  if (message.length <= MAX_TEMPLATE_LENGTH) {
    if (templates.size >= MAX_TEMPLATES) templates.clear();
    templates.set(message, parts);
  }
  return parts;
}

/** How many messages are remembered (tests). */
export function templateCacheSize(): number {
  return templates.size;
}

function parseTemplate(message: string): string[] {
  const parts: string[] = [];
  let copied = 0;
  let open = message.indexOf('{');
  while (open >= 0) {
    let end = open + 1;
    while (end < message.length && isKeyChar(message.charCodeAt(end))) end++;
    if (end === open + 1 || message.charCodeAt(end) !== 0x7d) {
      open = message.indexOf('{', open + 1);
      continue;
    }
    parts.push(message.slice(copied, open), message.slice(open + 1, end));
    copied = end + 1;
    open = message.indexOf('{', copied);
  }
  parts.push(copied === 0 ? message : message.slice(copied));
  return parts;
}

/** `[A-Za-z0-9_.]` */
function isKeyChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e;
}

/** What a placeholder becomes, or null when it stays as written. */
function placeholderText(v: unknown): string | null {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(v);
    case 'object':
      if (v === null) return '';
      return v instanceof Date ? v.toISOString() : null;
    default:
      return null;
  }
}
