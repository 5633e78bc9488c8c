/**
 * Monolog 2's NormalizerFormatter for the log stream: how a record's context and extra become JSON.
 *
 * - Bounds as Monolog's (`maxNormalizeItemCount` 1000, `maxNormalizeDepth` 9), and a cut is visible
 *   with Monolog's own marker texts: a `"..."` key saying how many entries there were, a value saying
 *   the depth was reached. A reader can always tell that a logged value is incomplete.
 * - Masking happens in the same walk: the value of a secret-named field is `***` at any depth and
 *   every string is scrubbed (the rules of src/debug/profiler/mask.ts), so the stream never shows a
 *   secret and a context is copied once, not once to mask it and again to bound it.
 * - An error is what each Monolog formatter makes of an exception: LineFormatter's
 *   `[object] (Class(code: 0): msg at file:line)` string, JsonFormatter's `{class, message, code, file,
 *   previous}` object; each message of the chain is scrubbed (an HTTP client's error quotes the URL and
 *   credentials it sent).
 *
 * Only written records are normalized (LogStream filters by level first): nothing here runs for a
 * record that LOG_LEVEL drops.
 */
import { throwSite } from '../debug/stack.ts';
import { classNameOf, FrameworkError } from '../kernel/exceptions.ts';
import { maskedField, maskHeaderList, scrubText } from '../debug/profiler/mask.ts';
import { messageOf, unreadableText } from '../debug/error-page/safe-json.ts';
import { defineOwn } from '../security/mask.ts';

/** Monolog's `maxNormalizeItemCount`: entries kept per array or object. */
export const MAX_NORMALIZE_ITEMS = 1000;
/** Monolog's `maxNormalizeDepth`. */
export const MAX_NORMALIZE_DEPTH = 9;
/**
 * The depth of a record's context and extra. Monolog normalizes the whole record, the record itself at
 * depth 0, so the context is at depth 1 and its fields at depth 2: a value nine levels down the
 * record, eight below a context field, is the last one written.
 */
export const CONTEXT_DEPTH = 1;

/** How many previous exceptions an exception in a context lists (Monolog aborts deeper chains too). */
export const MAX_PREVIOUS_EXCEPTIONS = 10;

/** How an exception in a context is written: LineFormatter's string or JsonFormatter's object. */
export type ExceptionStyle = 'line' | 'json';

const DEPTH_MARKER = `Over ${MAX_NORMALIZE_DEPTH} levels deep, aborting normalization`;

function overItems(total: number): string {
  return `Over ${MAX_NORMALIZE_ITEMS} items (${total} total), aborting normalization`;
}

/**
 * `value` as Monolog's NormalizerFormatter leaves it for json_encode, masked and scrubbed.
 *
 * An object met a second time (a cycle, or one value shared by two fields) is written `[...]`: cycles
 * are cut where Monolog would recurse to its depth bound, and a shared value is written once so that
 * the work stays linear in the size of the context (a small DAG of shared arrays would otherwise
 * expand to 1000^9 entries).
 */
export function normalize(value: unknown, style: ExceptionStyle, depth = CONTEXT_DEPTH, seen: Set<object> = new Set()): unknown {
  if (depth > MAX_NORMALIZE_DEPTH) return DEPTH_MARKER;
  switch (typeof value) {
    case 'string':
      return scrubText(value);
    case 'number':
      return Number.isFinite(value) ? value : nonFinite(value);
    case 'bigint':
      return value.toString();
    case 'function':
      return '[function]';
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  // `instanceof` too: a Proxy's getPrototypeOf trap may throw, and must cost its own field, not the whole context.
  try {
    return normalizeObject(value, style, depth, seen);
  } catch (error) {
    return unreadableText(error);
  }
}

/**
 * A date in a context as Monolog's NormalizerFormatter writes a plain \DateTime: its SIMPLE_DATE format,
 * `Y-m-d\TH:i:sP`, no fraction (`2026-11-24T09:44:33+00:00`), in UTC as the records' own datetime.
 */
function simpleDate(date: Date): string {
  const iso = date.toISOString();
  // Years past 9999 (or before 0) are `+012345-…`: cut at the seconds wherever they end.
  return `${iso.slice(0, iso.indexOf('.'))}+00:00`;
}

function normalizeObject(value: object, style: ExceptionStyle, depth: number, seen: Set<object>): unknown {
  if (value instanceof Error) return style === 'json' ? exceptionObject(value) : describeError(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : simpleDate(value);
  // Its fields are accessors on the prototype: walked, a URL was written `{}`. Its text, as the profile keeps it.
  if (typeof URL === 'function' && value instanceof URL) return scrubText(value.href);
  if (seen.has(value)) return '[...]';
  seen.add(value);
  if (Array.isArray(value)) return normalizeItems(value, style, depth, seen);
  if (isTypedArray(value)) return normalizeTypedItems(value, style, depth, seen);
  // A Map is JavaScript's associative array, a Set its list: walked as objects, both were written `{}`.
  if (value instanceof Map) return normalizeMap(value, style, depth, seen);
  if (value instanceof Set) return normalizeSet(value, style, depth, seen);
  // Monolog's NormalizerFormatter writes an object as `{"Class": its data}`; a plain (or null-prototype)
  // object is PHP's array, written as it is. The fields are read, never toJSON or toString.
  const name = constructorName(Object.getPrototypeOf(value));
  if (name === 'Object') return normalizeFields(value, style, depth, seen);
  const wrapped: Record<string, unknown> = {};
  defineOwn(wrapped, name, normalizeFields(value, style, depth, seen));
  return wrapped;
}

/** The class an object was made by (Monolog's Utils::getClass), `Object` when it has none to tell. */
export function constructorName(proto: unknown): string {
  const ctor = proto !== null && typeof proto === 'object' ? (proto as { constructor?: unknown }).constructor : undefined;
  return typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name !== '' ? ctor.name : 'Object';
}

/** A Set's items as normalizeItems writes a list's: cut, an object with Monolog's `"..."` key. */
function normalizeSet(set: Set<unknown>, style: ExceptionStyle, depth: number, seen: Set<object>): unknown {
  const out: unknown[] = [];
  for (const item of set) {
    if (out.length === MAX_NORMALIZE_ITEMS) return { ...out, '...': overItems(set.size) };
    out.push(normalize(item, style, depth + 1, seen));
  }
  return out;
}

/** A Map's entries as an object's fields (keys as strings), secret-named ones masked, cut as normalizeFields cuts. */
function normalizeMap(map: Map<unknown, unknown>, style: ExceptionStyle, depth: number, seen: Set<object>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of map) {
    if (n++ === MAX_NORMALIZE_ITEMS) {
      defineOwn(out, '...', overItems(map.size));
      break;
    }
    const key = typeof k === 'string' ? k : String(normalize(k, style, depth + 1, seen));
    defineOwn(out, key, maskedField(key, v) ?? normalize(v, style, depth + 1, seen));
  }
  return out;
}

/**
 * NormalizerFormatter::normalize's text for a float JSON cannot hold: `NaN`, `INF`, `-INF`. JSON.stringify
 * would write `null`, which reads as a value missing, not as a division by zero.
 */
function nonFinite(value: number): string {
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'INF' : '-INF';
}

/**
 * An array's items. Cut, it carries Monolog's `"..."` key after the first 1000 items: in PHP the array
 * is then no list and json_encode writes it as an object (`{"0":…,"999":…,"...":"Over 1000 items (5000
 * total), aborting normalization"}`), and so does this.
 */
function normalizeItems(list: readonly unknown[], style: ExceptionStyle, depth: number, seen: Set<object>): unknown {
  // `[name, value]` entries and `rawHeaders` lists have their credential headers masked, as a Headers object's are.
  const items = maskHeaderList(list);
  const total = items.length;
  if (total <= MAX_NORMALIZE_ITEMS) {
    const out: unknown[] = new Array(total);
    for (let i = 0; i < total; i++) out[i] = normalize(items[i], style, depth + 1, seen);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < MAX_NORMALIZE_ITEMS; i++) out[i] = normalize(items[i], style, depth + 1, seen);
  out['...'] = overItems(total);
  return out;
}

/** A typed array or a Buffer (a DataView has no items: it stays an object without fields). */
function isTypedArray(value: object): value is ArrayLike<unknown> {
  return ArrayBuffer.isView(value) && !(value instanceof DataView);
}

/**
 * A typed array's (a Buffer's) items, written as normalizeFields writes its index fields, without
 * listing them first: Object.keys of a 1 MB request body makes a million strings, half a second of a
 * blocked event loop for one log record of which 1000 items are written.
 */
function normalizeTypedItems(view: ArrayLike<unknown>, style: ExceptionStyle, depth: number, seen: Set<object>): Record<string, unknown> {
  const total = view.length;
  const out: Record<string, unknown> = {};
  const n = Math.min(total, MAX_NORMALIZE_ITEMS);
  for (let i = 0; i < n; i++) out[i] = normalize(view[i], style, depth + 1, seen);
  if (total > MAX_NORMALIZE_ITEMS) out['...'] = overItems(total);
  return out;
}

/** An object's own enumerable fields, secret-named ones masked, then Monolog's `"..."` key when cut. */
function normalizeFields(object: object, style: ExceptionStyle, depth: number, seen: Set<object>): Record<string, unknown> {
  const keys = Object.keys(object);
  const out: Record<string, unknown> = {};
  const n = Math.min(keys.length, MAX_NORMALIZE_ITEMS);
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    let v: unknown;
    try {
      v = (object as Record<string, unknown>)[key];
    } catch (error) {
      defineOwn(out, key, unreadableText(error));
      continue;
    }
    defineOwn(out, key, maskedField(key, v) ?? normalize(v, style, depth + 1, seen));
  }
  if (keys.length > MAX_NORMALIZE_ITEMS) defineOwn(out, '...', overItems(keys.length));
  return out;
}

/**
 * LineFormatter's normalizeException: `[object] (Class(code: 0): message at file:line)`, then one
 * `\n[previous exception] [object] (…)` per previous exception (`previous`, or `cause` for other
 * errors), innermost last — symfony-reference §5.1. The file is the source-mapped absolute path.
 * Bounded (MAX_PREVIOUS_EXCEPTIONS, then Monolog's "Over N levels deep" line) and cycle-safe.
 */
export function describeError(error: Error): string {
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

/** One exception as LineFormatter's formatException prints it. */
function describeOne(error: Error): string {
  try {
    const site = throwSite(error);
    return `[object] (${classNameOf(error)}(code: 0): ${scrubText(messageOf(error))}${site ? ` at ${site.file}:${site.line}` : ''})`;
  } catch {
    return `[object] (${safeClassName(error)})`;
  }
}

/** One exception as JsonFormatter writes it (NormalizerFormatter::normalizeException, no trace). */
interface ExceptionJson {
  class: string;
  message: string;
  code: number;
  file: string;
  previous?: ExceptionJson | [string];
}

/**
 * JsonFormatter's normalizeException: `{class, message, code, file: "path:line"}`, and `previous`
 * holding the previous exception the same way. There is no `trace`: JsonFormatter leaves it out
 * unless `includeStacktraces` is set, and Symfony does not set it. The chain has the line format's
 * bound (MAX_PREVIOUS_EXCEPTIONS, then `"previous": ["Over N levels deep, aborting normalization"]`, the
 * array Monolog writes there), so both formats list the same exceptions; a cycle ends the chain, as
 * in the line format.
 *
 * `code` is 0 as in the line format's `(code: 0)`: a JavaScript error has no integer code (Node's are
 * strings such as `ENOENT`, which PHP's `(int)` cast would make 0 too).
 */
function exceptionObject(error: Error): ExceptionJson {
  const out = exceptionFields(error);
  const seen = new Set<unknown>([error]);
  let last = out;
  let current: unknown = previousOf(error);
  for (let depth = 1; current instanceof Error && !seen.has(current); depth++) {
    if (depth > MAX_PREVIOUS_EXCEPTIONS) {
      last.previous = [`Over ${MAX_PREVIOUS_EXCEPTIONS} levels deep, aborting normalization`];
      break;
    }
    seen.add(current);
    const next = exceptionFields(current);
    last.previous = next;
    last = next;
    current = previousOf(current);
  }
  return out;
}

function exceptionFields(error: Error): ExceptionJson {
  let file = '';
  try {
    const site = throwSite(error);
    if (site) file = `${site.file}:${site.line}`;
  } catch {
    // no location: the key stays, empty, so that every exception object has the same fields
  }
  return { class: safeClassName(error), message: scrubText(messageOf(error)), code: 0, file };
}

/** classNameOf, for an error whose `name` or `className` getter may throw. */
export function safeClassName(error: Error): string {
  try {
    return classNameOf(error);
  } catch {
    return 'Error';
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

/**
 * JSON as Monolog's Utils::jsonEncode writes it. Its flags (unescaped slashes and unicode) are what
 * JSON.stringify does, except that PHP, without JSON_UNESCAPED_LINE_TERMINATORS, writes U+2028 and
 * U+2029 as `\u2028` and `\u2029`: a viewer that takes them for line breaks still sees one record per line.
 * Beyond PHP, DEL and the C1 controls (U+007F–U+009F) are escaped too, as JSON.stringify escapes C0:
 * raw, NEL (U+0085) is a line break to xterm and Python's splitlines, and CSI (U+009B) opens a terminal
 * escape sequence, from a client's Host or Referer quoted in a message. The JSON reads back the same.
 */
export function encodeJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) return 'null';
  return UNSAFE_IN_JSON.test(json) ? json.replace(UNSAFE_IN_JSON_ALL, escapeUnsafe) : json;
}

const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029]/;
const UNSAFE_IN_JSON_ALL = /[\u007f-\u009f\u2028\u2029]/g;

function escapeUnsafe(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
