import { isSecretName, maskedField, scrubText } from '../debug/profiler/mask.ts';
import type { LevelName } from './levels.ts';
import { CONTEXT_DEPTH, constructorName, encodeJson, normalize, safeClassName } from './normalize.ts';
import { messageOf, unreadableText } from '../debug/error-page/safe-json.ts';
import { remember } from '../http/remember.ts';

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
 * PSR-3 interpolation as Monolog 2's PsrLogMessageProcessor does it (placeholderText says what each
 * value becomes). A placeholder is any context key in braces, as Monolog looks each key up whatever its
 * characters (PSR-3's `[A-Za-z0-9_.]` is a recommendation); one whose key the context does not have (as
 * an own field) or whose value is undefined, a symbol or a function is left as written.
 *
 * Whatever a placeholder prints is masked, wherever the message is shown (log stream, debug page,
 * profile), so callers may pass the context as logged: a secret-named key's value is masked, strings
 * are scrubbed, and an array's JSON has its secret-named fields masked at any depth.
 */
export function interpolate(message: string, context: Record<string, unknown>): string {
  if (message.indexOf('{') < 0) return message;
  const parts = templateOf(message);
  if (parts.length === 1) return message;
  // A secret-named placeholder (`{password}`) never prints its value, wherever the message is shown.
  const masks = withSecretKeys.has(parts);
  if (parts.length === 3) return parts[0]! + (keyText(context, parts[1]!, masks) ?? `{${parts[1]!}}`) + parts[2]!;
  // Each key's text worked out once, as Monolog does (one replacement per context key, then strtr):
  // earlier keys found by a scan while there are few (the debug `event` lines have two, on every
  // listener call), through a Map past that.
  const texts: (string | null)[] = [];
  const byKey = parts.length > 2 * FEW_KEYS + 1 ? new Map<string, number>() : null;
  let repeated = 0;
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i]!;
    const earlier = byKey !== null ? (byKey.get(key) ?? -1) : earlierKey(parts, i);
    let value: string | null;
    if (earlier < 0) {
      value = keyText(context, key, masks);
      byKey?.set(key, i);
    } else if ((value = texts[earlier]!) !== null && (repeated += value.length) > MAX_REPEATED_PLACEHOLDER_TEXT) {
      value = null;
    }
    texts[i] = earlier < 0 ? value : texts[earlier]!;
    out += (value === null ? `{${key}}` : value) + parts[i + 1]!;
  }
  return out;
}

/**
 * Most text that repeated placeholders (a key met again in one message) add to it, in UTF-16 code
 * units; past it a repeat stays as written. Beyond Monolog, whose strtr replaces every occurrence:
 * a message may quote a client's text (the Referer of `No route found …`, thrown and logged by
 * ErrorListener with `{ exception }` as context), and a 16 KB Referer of `{exception}` repeated made
 * one request write the exception's own message 1,450 times, a 25 MB log line. The first occurrence
 * of each key is always printed, so an application's own messages (short repeats, if any) read as before.
 */
export const MAX_REPEATED_PLACEHOLDER_TEXT = 64 * 1024;

/** Up to this many placeholders, a repeated key is found by scanning the earlier ones. */
const FEW_KEYS = 8;

/** The index in `parts` of the first placeholder before `index` with the same key, or -1. */
function earlierKey(parts: readonly string[], index: number): number {
  const key = parts[index];
  for (let j = 1; j < index; j += 2) if (parts[j] === key) return j;
  return -1;
}

/** What the placeholder `{key}` prints (placeholderText), or null when it stays as written. */
function keyText(context: Record<string, unknown>, key: string, masks: boolean): string | null {
  try {
    // Own fields only: `{constructor}` must not print what Object.prototype has under that name.
    const raw = Object.hasOwn(context, key) ? context[key] : undefined;
    return placeholderText(masks ? (maskedField(key, raw) ?? raw) : raw);
  } catch (error) {
    // A getter or Proxy trap that throws costs its placeholder, not the record's line.
    return unreadableText(error);
  }
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
    remember(templates, MAX_TEMPLATES, message, parts);
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
    const end = placeholderEnd(message, open);
    if (end < 0) {
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

/** Longest placeholder key looked for: a message of many unclosed `{` is read in linear time. */
const MAX_KEY_LENGTH = 256;

/**
 * Where the placeholder opened at `open` closes, or -1. Monolog looks up `'{' . $key . '}'` for every
 * context key, whatever its characters (`{user-id}`, `{order id}`, `{}`), so a key is anything up to the
 * next `}` without another `{` in between.
 */
function placeholderEnd(message: string, open: number): number {
  const limit = Math.min(message.length, open + 2 + MAX_KEY_LENGTH);
  for (let i = open + 1; i < limit; i++) {
    const c = message.charCodeAt(i);
    if (c === 0x7d) return i;
    if (c === 0x7b) return -1;
  }
  return -1;
}

/**
 * What a placeholder becomes, or null when it stays as written. As PsrLogMessageProcessor (2.x, which
 * replaces with strtr): a string as it is (scrubbed), a number as PHP prints it, `true` as `1` and
 * `false` and null as the empty string (PHP's string casts); an array, and a plain object (a PHP
 * associative array), as `array` and its JSON (Monolog ≥ 2.2), normalized with the log stream's
 * bounds so that a large one prints the same cut markers as the context; any other object as
 * `[object Class]`.
 *
 * Two kinds of object print otherwise than in Monolog, which prints an object with `__toString` through it:
 * - an error prints `Class: message`, the first part of PHP's Throwable::__toString (its location and
 *   trace are the context's business);
 * - a Date keeps the ISO string irms-web has always printed.
 * A URL prints its href, as a PSR-7 Uri prints through its `__toString`. Other objects' toString is not called: every JavaScript object inherits one from the built-ins, and
 * some (a Buffer's) would print whole, unbounded, binary payloads.
 */
function placeholderText(v: unknown): string | null {
  switch (typeof v) {
    case 'string':
      return scrubText(v);
    case 'number':
      // PHP's string cast of a float: INF, -INF, NAN.
      return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'NAN' : v > 0 ? 'INF' : '-INF';
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? '1' : '';
    case 'object':
      return v === null ? '' : objectText(v);
    default:
      return null;
  }
}

function objectText(v: object): string {
  try {
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
    if (v instanceof Error) return scrubText(`${safeClassName(v)}: ${messageOf(v)}`);
    // A URL's text is its value (as a PHP Uri's __toString is), secrets masked as in any logged URL.
    if (typeof URL === 'function' && v instanceof URL) return scrubText(v.href);
    const proto: unknown = Object.getPrototypeOf(v);
    if (Array.isArray(v) || proto === Object.prototype || proto === null) return `array${encodeJson(normalize(v, 'json', CONTEXT_DEPTH + 1))}`;
    return `[object ${constructorName(proto)}]`;
  } catch (error) {
    return unreadableText(error);
  }
}


