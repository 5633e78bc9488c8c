/**
 * JSON bodies decoded as PHP's json_decode decodes them (Symfony's Request::toArray and the JSON body
 * listener both go through it): what json_decode refuses, this refuses, where JSON.parse alone would
 * accept it — a byte-order mark, invalid UTF-8, nesting past its depth, an unpaired surrogate escape.
 */
import { isWellFormedText } from './url-encode.ts';

/**
 * PHP's json_decode depth (512, the default Symfony's Request::toArray and the JSON body listener use).
 * PHP counts the document itself as a level, so arrays and objects may nest MAX_JSON_DEPTH - 1 deep:
 * `json_decode('[[1]]', false, 2)` is "Maximum stack depth exceeded" (php-src ext/json/tests/007.phpt).
 */
export const MAX_JSON_DEPTH = 512;

/** ignoreBOM keeps a leading byte-order mark in the text, so JSON.parse refuses it as json_decode does. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The decoded value and its text; throws (the reason as the error) where json_decode fails. */
export function decodeJsonLikePhp(bytes: Uint8Array): { data: unknown; text: string } {
  const text = strictUtf8.decode(bytes);
  if (text.length >= MAX_JSON_DEPTH * 2 && nestingDepth(text) >= MAX_JSON_DEPTH) throw new SyntaxError('Maximum stack depth exceeded');
  const data: unknown = JSON.parse(text);
  // json_decode refuses an unpaired UTF-16 surrogate escape (JSON_ERROR_UTF16); JSON.parse keeps it.
  // Only a text holding a surrogate escape is walked.
  if (SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(data)) throw new SyntaxError('Single unpaired UTF-16 surrogate in unicode escape');
  return { data, text };
}

/** Whether a parsed JSON value holds a string (or key) with an unpaired surrogate; its depth is bounded by the parse check. */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !isWellFormedText(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  for (const key of Object.keys(value)) {
    if (!isWellFormedText(key) || hasLoneSurrogate((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/**
 * The deepest `[`/`{` nesting of a JSON text, strings skipped. Only called for texts long enough to
 * be deeper than the limit; linear, no recursion.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * json_decode($text, true), as Symfony's toArray and the JSON body listener call it, gives PHP arrays:
 * an object whose keys run 0, 1, 2… is a list, and an empty object is the empty array, which
 * JsonResponse writes back as `[]`. So `{"tags":{"0":"x","1":"y"},"meta":{}}` reaches the application
 * as `{ tags: ['x', 'y'], meta: [] }`, as a form body's `tags[0]=x&tags[1]=y` already does. Changed in
 * place; the depth is bounded by the decoder's nesting check. (JavaScript lists integer keys first, so
 * `{"1":"a","0":"b"}`, an object to PHP, becomes `['b', 'a']`: the same value under each key.)
 */
export function asPhpArrays(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = asPhpArrays(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (isListKeys(keys)) {
    const list: unknown[] = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) list[i] = asPhpArrays(record[keys[i]!]);
    return list;
  }
  for (const key of keys) {
    const before = record[key];
    const after = asPhpArrays(before);
    // Only a list replaces its object; `__proto__` is an own key JSON.parse made, not the prototype's setter.
    if (after !== before) Object.defineProperty(record, key, { value: after, writable: true, enumerable: true, configurable: true });
  }
  return record;
}

/** `[]` or `['0', '1', …]`: the first key is read before any string is built, as most objects have none of these. */
function isListKeys(keys: readonly string[]): boolean {
  if (keys.length === 0) return true;
  if (keys[0] !== '0') return false;
  for (let i = 1; i < keys.length; i++) if (keys[i] !== String(i)) return false;
  return true;
}
