/**
 * Secrets never reach a profile: everything the profiler stores goes through these functions first.
 * (Anything that stores requests stores secrets — peers.md §3.4, laravel-debugbar#1452.)
 *
 * - header values of Authorization, Proxy-Authorization and other credential headers;
 * - Cookie and Set-Cookie values (names are kept);
 * - the session id;
 * - body, query and context fields named like password / token / secret / api key (any depth), and
 *   credential headers in header lists (`[name, value]` entries, `rawHeaders`: maskHeaderList);
 * - `Bearer …` / `Basic …` credentials, secret query parameters (after `?`, `&`, `;` or `#`) and the
 *   secret fields of JSON quoted in text inside any stored string (URLs, Referer, log messages, the
 *   encoded `X-Debug-Exception`).
 *
 * Every value is also bounded (depth, keys, items, string length) and made JSON-safe.
 */

import { defineOwn, isMaskedValue, isSecretKey, MASK, maskToken as sharedMaskToken } from '../../security/mask.ts';
import { HTTP_TOKEN } from '../../http/cookies.ts';
import { rawUrlEncode, safeDecode } from '../../http/url-encode.ts';
import { sameJson } from './profile-json.ts';
import { messageOf, unreadableText } from '../error-page/safe-json.ts';
import { remember } from '../../http/remember.ts';

export { MASK };

/** Named like secrets, but public by design: the profiler's own headers. */
const PUBLIC_HEADERS = new Set(['x-debug-token', 'x-debug-token-link', 'x-previous-debug-token']);
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-auth-token', 'x-csrf-token', 'x-xsrf-token', 'x-amz-security-token', 'dpop']);

/**
 * True for field, parameter and header names that hold credentials: the one name policy, written
 * down at isSecretKey (src/security/mask.ts), which `maskSecrets` and the data collectors use too.
 */
export const isSecretName: (name: string) => boolean = isSecretKey;

/**
 * True for the names of request parameters (query, body, a URL's query) that hold credentials: the
 * secret names, and OAuth 2's `code`, the authorization code a client's callback receives in its query
 * (RFC 6749 §4.1.2) and sends back in a token request's body (§4.1.3). Only there: in a log context
 * or an error's properties `code` is an error code (`ENOENT`, 404), which must stay readable.
 */
export function isSecretParameter(name: string): boolean {
  return name === 'code' || isSecretName(name);
}

/** A token shown only by its first characters (enough to tell two apart, useless to replay). */
export function maskToken(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  return sharedMaskToken(typeof value === 'string' ? value : String(value));
}

/**
 * An auth scheme and its credentials (`Bearer abc`, `Bearer: abc`). Schemes are case-insensitive (RFC
 * 7235: `authorization: bearer abc` is the same header), but `token`, `basic`, `digest`, `bearer` are
 * English words too: the scheme as registered (`Bearer`, `Basic`…) masks whatever follows, any other
 * spelling only what does not read as a word (lower-case letters, maybe closing a sentence), so that
 * "security token from the session" and "with a bearer token." stay readable. The credential may be
 * quoted, as exception messages quote what they reject (`Invalid token "eyJ…"`).
 */
const CREDENTIAL_IN_TEXT = /\b(bearer|basic|digest|token|dpop)(\s+["']?|:\s*["']?)([A-Za-z0-9._~+/=-]{4,})/gi;
const SCHEME_WORD = /bearer|basic|digest|token|dpop/i;
/** `DPoP`: RFC 9449's sender-constrained access token (`Authorization: DPoP …`). */
const REGISTERED_SCHEMES = new Set(['Bearer', 'Basic', 'Digest', 'Token', 'DPoP']);
const LOWER_CASE_WORD = /^[a-z]+\.?$/;

/** Each credential after a scheme replaced by the mask (CREDENTIAL_IN_TEXT); a text with none is returned as it is, uncopied. */
function maskCredentials(text: string): string {
  let out = '';
  let copied = 0;
  CREDENTIAL_IN_TEXT.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = CREDENTIAL_IN_TEXT.exec(text)) !== null) {
    const start = m.index + m[1]!.length + m[2]!.length;
    if (!REGISTERED_SCHEMES.has(m[1]!) && LOWER_CASE_WORD.test(m[3]!)) {
      // The word may be a scheme itself: `bearer token eyJ…`.
      CREDENTIAL_IN_TEXT.lastIndex = start;
      continue;
    }
    out += text.slice(copied, start) + MASK;
    copied = CREDENTIAL_IN_TEXT.lastIndex;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * A separator and the key-like run after it; maskPairs takes it for a key when `=` follows. `#` opens a
 * key too: OAuth's implicit grant and OpenID Connect return `#access_token=…&id_token=…` in the
 * fragment (RFC 6749 §4.2.2). A failed run is not scanned again from a `?` inside it (a regex wanting
 * the `=` would: quadratic on `????…`).
 */
const QUERY_KEY = /[?&;#]([^=&#\s"'<>;]*)/g;
/**
 * `://user:password@`: found from each `://`, so the scan stays linear whatever the text. The password
 * runs to the last `@` before the host, as URL parsers read it (WHATWG URL, PHP's parse_url): a DSN
 * written with an unencoded `@` in its password (`mysql://root:p@ss@db`) is masked whole, not up to
 * its first `@`.
 */
const URL_PASSWORD = /:\/\/([^\s/?#@:"'<>]*):([^\s/?#"'<>]+)@/g;

/** Where a query value ends in a URL on its own: at the next `&`, as the request's own parser reads it. */
const endsUrlValue = (c: number): boolean => c === 0x26;
/** Where it ends in free text, which cannot say where a URL stops: also at whitespace, quotes, `<>#;`. */
const endsTextValue = (c: number): boolean => c === 0x26 || c <= 0x20 || c === 0x22 || c === 0x27 || c === 0x3c || c === 0x3e || c === 0x23 || c === 0x3b;

/**
 * Where a path parameter's value ends (`/cart;jsessionid=…?page=2`): at the query, the fragment, the next
 * segment or parameter. Read to the next `&` instead, the value took the `?` and the first query
 * parameter with it, and the stored URL lost them.
 */
const endsPathValue = (c: number): boolean => c === 0x3f || c === 0x23 || c === 0x2f || c === 0x3b;

/**
 * Whether the `;` at `at` opens a path parameter: no `?` before it in the same URL, read back to
 * `from` (where the previous masked value ended, so the scans together stay linear) or to what
 * ends a URL in free text.
 */
function opensPathParameter(text: string, at: number, from: number): boolean {
  for (let i = at - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x3f) return false;
    if (c <= 0x20 || c === 0x22 || c === 0x27 || c === 0x3c || c === 0x3e) return true;
  }
  return true;
}

/**
 * A value in free text starting at `start`, as [from, to] to mask. A quoted one (`password="a b"`, as
 * logfmt and many messages write it) runs to its closing quote on the same line and keeps its quotes:
 * ended at the opening quote, it was masked as nothing and shown whole after the mask.
 */
function textValue(text: string, start: number): readonly [number, number] {
  const quote = text.charCodeAt(start);
  let from = start;
  if (quote === 0x22 || quote === 0x27) {
    from = start + 1;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === quote) return [from, i];
      if (c === 0x0a) break;
      if (c === 0x5c) i++;
    }
  }
  let end = from;
  while (end < text.length && !endsTextValue(text.charCodeAt(end))) end++;
  return [from, end];
}

/** Every value of a secret-named query key replaced by the mask, each value ending where `ends` says. */
function maskPairs(text: string, ends: (c: number) => boolean): string {
  let out = '';
  let copied = 0;
  QUERY_KEY.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = QUERY_KEY.exec(text)) !== null) {
    if (text.charCodeAt(QUERY_KEY.lastIndex) !== 0x3d || m[1] === '') continue;
    QUERY_KEY.lastIndex++;
    if (!isSecretParameter(safeDecode(m[1]!))) continue;
    let start = QUERY_KEY.lastIndex;
    let end = start;
    if (text.charCodeAt(m.index) === 0x3b && opensPathParameter(text, m.index, copied)) {
      while (end < text.length && !ends(text.charCodeAt(end)) && !endsPathValue(text.charCodeAt(end))) end++;
    } else if (ends === endsTextValue) {
      [start, end] = textValue(text, start);
    } else {
      while (end < text.length && !ends(text.charCodeAt(end))) end++;
    }
    out += text.slice(copied, start) + MASK;
    copied = end;
    QUERY_KEY.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * A word that every secret name (isSecretName) holds, whatever its case: a text without one has no
 * secret key, and maskLeadingKeys returns it without reading each of its keys (a slice and a lookup
 * apiece, where most texts with a `=` are `charset=UTF-8` or `max-age=0`). Extend it with the names.
 */
const SECRET_NAME_HINT = /pass|pwd|secret|token|auth|cookie|sess|sid|key|cred|csrf|xsrf|sig|remember|card|cc|code|assertion|oidc|otp|pin|cv[vc]/i;

/** Characters that end a key read backwards from its `=` (maskLeadingKeys): blanks, quotes, `<>`, `=` and query separators. */
const endsKeyBackwards = (c: number): boolean => c <= 0x20 || c === 0x3d || c === 0x26 || c === 0x23 || c === 0x3b || c === 0x3f || c === 0x22 || c === 0x27 || c === 0x3c || c === 0x3e;

/**
 * maskPairs for the keys that no query separator opens: at the start of the text or after a blank. A
 * query string or form body logged on its own (`token=…&page=2`, getQueryString()) starts with a key,
 * and key=value log lines (`login failed user=ada password=…`) separate theirs with blanks. Each `=` is
 * found with indexOf and its key read backwards to the character before it (never past the previous
 * `=`, so the scan stays linear), which is cheaper than a pattern trying every blank. Such a key is
 * read as a log line's: OAuth's `code` is a secret only after `?`/`&` (`code=502` is an error code).
 */
function maskLeadingKeys(text: string): string {
  if (!SECRET_NAME_HINT.test(text)) return text;
  let out = '';
  let copied = 0;
  let eq = text.indexOf('=');
  while (eq >= 0) {
    let from = eq;
    while (from > copied && !endsKeyBackwards(text.charCodeAt(from - 1))) from--;
    const opener = from === 0 ? 0x20 : text.charCodeAt(from - 1);
    if (from < eq && opener <= 0x20 && isSecretName(safeDecode(text.slice(from, eq)))) {
      const [start, end] = textValue(text, eq + 1);
      out += text.slice(copied, start) + MASK;
      copied = end;
      eq = text.indexOf('=', end);
    } else {
      eq = text.indexOf('=', eq + 1);
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function maskUrlPasswords(text: string): string {
  // Most texts hold a URL (`://`) and no `@`: the pattern runs only when both are there.
  return text.includes('@') && text.includes('://') ? text.replace(URL_PASSWORD, (_, user: string) => `://${user}:${MASK}@`) : text;
}

/**
 * A URL on its own (a request target, a Referer) with its secrets masked: the password of
 * `user:password@`, and the whole value of each secret query parameter (`?q=1&token=***`), up to the
 * next `&` as the request's query parser reads it, quotes, `#` and `;` included. A URL without `=` or
 * `://` is returned as it is; so are encoded values hiding nothing (maskEncodedCredentials). The log stream masks URLs with this too (src/log/logger.ts,
 * RouterListener's `request_uri` and Referer), so logs and profiles mask alike.
 */
export function maskQuerySecrets(url: string): string {
  const out = maskUrlPasswords(url);
  // Credentials inside encoded values too (`?dsn=mysql%3A%2F%2Fu%3Apw%40db`): the query table shows them decoded and masked.
  return maskJwts(out.includes('=') ? maskEncodedCredentials(maskPairs(out, endsUrlValue)) : out);
}

/**
 * A JSON Web Token, whatever names it (`?t=`, `X-JWT:`, a log line): `eyJ` is a base64url JSON object's
 * start, and two of them dot-separated are a JWT's header and payload, which no other text has. The
 * signature goes with them; the mask keeps nothing of a token that is a login in itself.
 */
const JWT = /eyJ[A-Za-z0-9_-]{2,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;

function maskJwts(text: string): string {
  return text.includes('eyJ') ? text.replace(JWT, MASK) : text;
}

/**
 * Masks `Bearer …` credentials, URL passwords, secret query parameters and secret JSON fields inside
 * free text.
 *
 * Cheap on text with nothing to hide, which is nearly every log message and context string: each step
 * runs its pattern only after a scan that finds what the pattern needs (`@` and `://`, `=`, a scheme
 * word, `{` and a quote before `:`), and returns its input uncopied when it masks nothing, so `Matched route
 * "home".` costs a few short scans and no allocation. Measured on the framework's messages: 30–180 ns
 * each (300 ns for one with the word `token` in it), where formatting the record for the log stream
 * costs 2–4 µs.
 */
export function scrubText(text: string): string {
  let out = maskUrlPasswords(text);
  if (out.includes('=')) out = maskLeadingKeys(maskPairs(out, endsTextValue));
  if (SCHEME_WORD.test(out)) out = maskCredentials(out);
  // A JSON object quoted in a message or a context string (an upstream's error body, a logged
  // payload): `{"access_token":"…"}` has no `=` for the steps above to find.
  if (out.includes('{') && hasQuotedKey(out) && SECRET_NAME_HINT.test(out)) out = maskFields(out, JSON_KEY, stickyValue(JSON_VALUE), `"${MASK}"`);
  return maskJwts(out);
}

/** Whether a quote, maybe blanks, then `:` (a JSON key's end) is in the text; found from each `:`, which few messages hold. */
function hasQuotedKey(text: string): boolean {
  for (let colon = text.indexOf(':'); colon > 0; colon = text.indexOf(':', colon + 1)) {
    let i = colon - 1;
    while (i > 0 && text.charCodeAt(i) === 0x20) i--;
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x27) return true;
  }
  return false;
}

/** `=` and the value after it, up to where a query or form value ends (or free text would end it). */
const PAIR_VALUE = /=([^&#\s"'<>]*)/g;

/**
 * Credentials inside percent-encoded query and form values: `dsn=mysql%3A%2F%2Fu%3Apw%40db`,
 * `h=Bearer%20eyJ…`, `next=%2Fa%3Ftoken%3D…`. The parsed parameters show such a value decoded, where
 * scrubText finds and masks the credential; the URL and the raw body carry it encoded, where no pattern
 * sees it, so the same secret would be hidden in one table and shown in the next. Each value holding
 * `%` or `+` is decoded as the parameter parser decodes it, scrubbed, and, when that hid something,
 * written back encoded around the mask. Text without `%` or `+` is returned as it is.
 */
export function maskEncodedCredentials(text: string): string {
  if (text.indexOf('%') < 0 && text.indexOf('+') < 0) return text;
  let out = '';
  let copied = 0;
  PAIR_VALUE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PAIR_VALUE.exec(text)) !== null) {
    const value = m[1]!;
    if (value.indexOf('%') < 0 && value.indexOf('+') < 0) continue;
    const decoded = safeDecode(value);
    const scrubbed = scrubText(decoded);
    if (scrubbed === decoded) continue;
    const start = m.index + 1;
    out += text.slice(copied, start) + scrubbed.split(MASK).map(rawUrlEncode).join(MASK);
    copied = start + value.length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * scrubText for what a profile stores and the debug page shows (values, log messages and contexts,
 * URLs): also the credentials inside encoded query and form values (maskEncodedCredentials).
 */
export function scrubStoredText(text: string): string {
  return maskEncodedCredentials(scrubText(text));
}

/** The mask for the value of a field named `key`, or undefined when the value may be shown. */
export function maskedField(key: string, value: unknown): string | undefined {
  if (value === '' || value === null || value === undefined || !isSecretName(key) || isMaskedValue(value)) return undefined;
  return MASK;
}

/**
 * A log context (or an error's own properties) as the debug page shows it (the log stream masks in its own walk, src/log/normalize.ts): values of
 * secret-named fields masked at any depth and strings scrubbed, as profiles have them (sanitize);
 * errors and dates are kept for the renderer to describe, other objects copied as plain ones, cycles
 * and shared values kept as such (each renderer marks cycles its own way). Bounded: depth 8, 200
 * entries per object or array; a value that cannot be read shows why.
 */
export function maskForDisplay(value: unknown): unknown {
  // Nearly every context (`{event, listener}` on each traced call) has nothing to hide: it is then
  // handed back as it is, after one walk that allocates nothing.
  needsMaskVisits = 0;
  return needsMask(value, 0, null) ? maskCopy(value, 0, new Map()) : value;
}

/**
 * Objects needsMask may enter per context. It keeps no record of what it walked, so an object shared
 * by many fields (a DAG: 200 keys pointing at one child with 200 keys…) would be walked once per path,
 * 200^8 times; past the budget it answers "mask", and maskCopy, which copies each object once, decides.
 */
const NEEDS_MASK_VISITS = 2000;
let needsMaskVisits = 0;

/** A typed array or Buffer: numbers only, nothing to mask, and Object.keys would list every byte. */
function isByteView(value: object): boolean {
  return ArrayBuffer.isView(value);
}

/** Whether maskCopy would change anything in `value` (cycle-safe; `path` holds the objects walked into). */
function needsMask(value: unknown, depth: number, path: object[] | null): boolean {
  if (typeof value === 'string') return scrubStoredText(value) !== value;
  if (value === null || typeof value !== 'object' || value instanceof Error || value instanceof Date) return false;
  if (path !== null && path.includes(value)) return false;
  if (isByteView(value)) return false;
  if (depth >= 8 || ++needsMaskVisits > NEEDS_MASK_VISITS) return true;
  const walked = path ?? [];
  walked.push(value);
  try {
    if (Array.isArray(value)) {
      if (value.length > 200 || maskHeaderList(value) !== value) return true;
      for (const item of value) if (needsMask(item, depth + 1, walked)) return true;
      return false;
    }
    const keys = Object.keys(value);
    if (keys.length > 200) return true;
    for (const key of keys) {
      const v = (value as Record<string, unknown>)[key];
      if (maskedField(key, v) !== undefined || needsMask(v, depth + 1, walked)) return true;
    }
    return false;
  } catch {
    return true;
  } finally {
    walked.pop();
  }
}

function maskCopy(value: unknown, depth: number, copies: Map<object, unknown>): unknown {
  if (typeof value === 'string') return scrubStoredText(value);
  if (value === null || typeof value !== 'object' || value instanceof Error || value instanceof Date) return value;
  if (isByteView(value)) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  if (depth >= 8) return '[...]';
  try {
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      copies.set(value, items);
      for (const item of maskHeaderList(value).slice(0, 200)) items.push(maskCopy(item, depth + 1, copies));
      return items;
    }
    const out: Record<string, unknown> = {};
    copies.set(value, out);
    for (const key of Object.keys(value).slice(0, 200)) {
      let v: unknown;
      try {
        v = (value as Record<string, unknown>)[key];
      } catch (error) {
        defineOwn(out, key, unreadableText(error));
        continue;
      }
      defineOwn(out, key, maskedField(key, v) ?? maskCopy(v, depth + 1, copies));
    }
    return out;
  } catch (error) {
    return unreadableText(error);
  }
}

/**
 * An error's class as a log context shows it. Read like its message (messageOf): a getter that
 * throws, a Proxy's trap or a `name` that is no string must not cost the profile holding it.
 */
function errorClass(error: Error): string {
  try {
    const className = (error as { className?: unknown }).className;
    if (typeof className === 'string') return className;
    const name = error.name;
    return typeof name === 'string' && name ? name : 'Error';
  } catch {
    return 'Error';
  }
}

export interface Bounds {
  depth: number;
  keys: number;
  items: number;
  string: number;
}

export const DEFAULT_BOUNDS: Bounds = { depth: 6, keys: 100, items: 100, string: 4096 };

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/**
 * A JSON-safe, bounded, masked copy of any value: fields with secret names become `******` at any
 * depth, strings are scrubbed and cut, errors become `{class, message}`, cycles `[circular]`.
 */
export function sanitize(value: unknown, bounds: Bounds = DEFAULT_BOUNDS): unknown {
  walkedValues = 0;
  return walk(value, bounds, 0, []);
}

/**
 * Values one sanitize call copies. Shared values are copied wherever they appear (`seen` holds the
 * path only), so an object shared by many fields at many levels (a DAG: 50 keys pointing at one child
 * with 50 keys, six levels) would be copied 50^6 times, and its JSON be as large: the profile of such a
 * logged context ran out of memory. Past the budget a value is written `[...]`.
 */
const MAX_WALKED_VALUES = 20_000;
let walkedValues = 0;

/** `seen` holds the objects being walked (the current path), to tell cycles from shared values. */
function walk(value: unknown, bounds: Bounds, depth: number, seen: object[]): unknown {
  if (++walkedValues > MAX_WALKED_VALUES) return '[...]';
  switch (typeof value) {
    case 'string':
      return truncate(scrubStoredText(value), bounds.string);
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'undefined':
      return null;
    case 'symbol':
      return value.toString();
    case 'function':
      return `[function ${(value as { name?: string }).name || 'anonymous'}]`;
  }
  if (value === null) return null;
  const object = value as object;
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
  // Its fields are accessors on the prototype: walked, a URL was stored as `{}`. Its text, masked as any URL.
  if (typeof URL === 'function' && object instanceof URL) return truncate(scrubStoredText(object.href), bounds.string);
  if (object instanceof Error) return { class: errorClass(object), message: truncate(scrubStoredText(messageOf(object)), bounds.string) };
  if (seen.includes(object)) return '[circular]';
  if (depth >= bounds.depth) return Array.isArray(object) ? `[array(${object.length})]` : '[object]';
  seen.push(object);
  try {
    if (Array.isArray(object)) return walkItems(maskHeaderList(object), bounds, depth, seen);
    const proto = Object.getPrototypeOf(object);
    if (proto === Object.prototype || proto === null) {
      // Plain objects (nearly everything): keys read one by one, no intermediate entry list.
      return walkFields(Object.keys(object), object as Record<string, unknown>, null, bounds, depth, seen);
    }
    if (isByteView(object)) return `[${(object as ArrayBufferView).byteLength} bytes]`;
    if (typeof Blob !== 'undefined' && object instanceof Blob) {
      const name = (object as { name?: unknown }).name;
      return { file: typeof name === 'string' ? truncate(name, 256) : null, size: object.size, type: object.type };
    }
    if (object instanceof Set) return walkItems([...object], bounds, depth, seen);
    const out: Record<string, unknown> = {};
    const entries: [string, unknown][] = object instanceof Map ? [...object.entries()].map(([k, v]) => [String(k), v]) : safeEntries(object);
    let n = 0;
    for (const [key, v] of entries) {
      if (n++ >= bounds.keys) {
        defineOwn(out, '…', `${entries.length - bounds.keys} more keys`);
        break;
      }
      defineOwn(out, key, isSecretName(key) && v !== null && v !== undefined && v !== '' ? MASK : walk(v, bounds, depth + 1, seen));
    }
    return out;
  } finally {
    seen.pop();
  }
}

/** The fields of a plain object (`source`), or of a key/value source read through `read`. */
function walkFields(
  keys: readonly string[],
  source: Record<string, unknown> | null,
  read: ((key: string) => unknown) | null,
  bounds: Bounds,
  depth: number,
  seen: object[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.min(keys.length, bounds.keys);
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    let v: unknown;
    try {
      v = source !== null ? source[key] : read!(key);
    } catch {
      v = '[unreadable]';
    }
    defineOwn(out, key, isSecretName(key) && v !== null && v !== undefined && v !== '' ? MASK : walk(v, bounds, depth + 1, seen));
  }
  if (keys.length > bounds.keys) defineOwn(out, '…', `${keys.length - bounds.keys} more keys`);
  return out;
}

/**
 * `sanitizeRecord` of an object with these keys whose values `read` gives (a parameter bag, without
 * copying it into an object first).
 */
export function sanitizeFields(keys: readonly string[], read: (key: string) => unknown, bounds: Bounds = DEFAULT_BOUNDS): Record<string, unknown> {
  walkedValues = 0;
  return walkFields(keys, null, read, bounds, 0, []);
}

function walkItems(items: readonly unknown[], bounds: Bounds, depth: number, seen: object[]): unknown[] {
  const n = Math.min(items.length, bounds.items);
  const out: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = walk(items[i], bounds, depth + 1, seen);
  if (items.length > bounds.items) out.push(`… ${items.length - bounds.items} more items`);
  return out;
}

function safeEntries(object: object): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const key of Object.keys(object)) {
    let v: unknown;
    try {
      v = (object as Record<string, unknown>)[key];
    } catch {
      v = '[unreadable]';
    }
    out.push([key, v]);
  }
  return out;
}

/** Masked parameters (query, body, attributes): always a plain object. */
export function sanitizeRecord(value: Record<string, unknown> | null | undefined, bounds: Bounds = DEFAULT_BOUNDS): Record<string, unknown> {
  if (!value) return {};
  const out = sanitize(value, bounds);
  return out && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : {};
}

/** Cookie header value with every value masked: `a=******; b=******` (a nameless cookie: `******`). */
export function maskCookieHeader(header: string): string {
  return header
    .split(';')
    .map((part) => {
      const eq = part.indexOf('=');
      // A part without `=` is a cookie with an empty name (browsers send it as the bare value), and a
      // "name" that is no HTTP token (`a, b` from two joined Cookie headers) may hold a value: both masked whole.
      if (eq < 0) return part.trim() === '' ? '' : MASK;
      const name = part.slice(0, eq).trim();
      return name === '' || HTTP_TOKEN.test(name) ? `${name}=${MASK}` : MASK;
    })
    .filter(Boolean)
    .join('; ');
}

/** `name=value; attrs` → name, masked value, attributes. */
export function parseSetCookie(line: string): { name: string; value: string; attributes: string } {
  const semi = line.indexOf(';');
  const pair = semi < 0 ? line : line.slice(0, semi);
  const eq = pair.indexOf('=');
  const name = (eq < 0 ? pair : pair.slice(0, eq)).trim();
  const attributes = semi < 0 ? '' : line.slice(semi + 1).trim();
  return { name, value: MASK, attributes };
}

export function maskSetCookie(line: string): string {
  const { name, attributes } = parseSetCookie(line);
  return `${name}=${MASK}${attributes ? `; ${attributes}` : ''}`;
}

/**
 * scrubText on percent-encoded text: the debug error response's `X-Debug-Exception` carries the
 * exception message rawurlencoded (`api_key%3D…%20Bearer%20…`), where no pattern can see a secret. The
 * stored copy is decoded, scrubbed and encoded again; a message with nothing to hide keeps its bytes.
 * The live response keeps Symfony's header (the raw message, encoded): only what is stored changes.
 */
function scrubEncodedText(value: string): string {
  const text = safeDecode(value);
  const scrubbed = scrubText(text);
  return scrubbed === text ? value : rawUrlEncode(scrubbed);
}

/** Headers whose value is one URL: masked as a URL, each secret value to its end (maskQuerySecrets). */
const URL_HEADERS = new Set(['referer', 'location', 'content-location']);

/** Whether a header (lower-case name) carries credentials: its whole value is masked, or each cookie's. */
function isSecretHeader(key: string): boolean {
  return SECRET_HEADERS.has(key) || (isSecretName(key) && !PUBLIC_HEADERS.has(key));
}

/** One header value as stored: credentials masked, cookies masked by value, the rest scrubbed and cut. */
export function maskHeader(name: string, value: string, maxLength = 4096): string {
  const key = name.toLowerCase();
  if (key === 'cookie') return truncate(maskCookieHeader(value), maxLength);
  if (key === 'set-cookie') return truncate(maskSetCookie(value), maxLength);
  if (isSecretHeader(key)) {
    const space = value.indexOf(' ');
    // Keep the scheme (`Bearer`, `Basic`): it is useful and not secret.
    return space > 0 && space < 20 && /^[A-Za-z-]+$/.test(value.slice(0, space)) ? `${value.slice(0, space)} ${MASK}` : MASK;
  }
  const scrub = URL_HEADERS.has(key) ? maskQuerySecrets : key === 'x-debug-exception' ? scrubEncodedText : scrubText;
  if (value.length > MAX_REMEMBERED_VALUE || value.length > maxLength) return truncate(scrub(value), maxLength);
  if (rememberedHeaders.get(key) === value) return value;
  const masked = scrub(value);
  // Only a value that masking left as it is is remembered: nothing secret is kept past the request.
  if (masked === value) {
    if (key.length > MAX_REMEMBERED_NAME) return value;
    remember(rememberedHeaders, MAX_REMEMBERED_HEADERS, key, value);
    return value;
  }
  return truncate(masked, maxLength);
}

/**
 * Per header name, the last short value that masking left unchanged: most headers (content type,
 * cache control, host, user agent) repeat from request to request. Bounded in count and in the length
 * of names and values (a client chooses both: 256 names of 16 KiB each were kept before).
 */
const rememberedHeaders = new Map<string, string>();
const MAX_REMEMBERED_HEADERS = 256;
const MAX_REMEMBERED_VALUE = 512;
const MAX_REMEMBERED_NAME = 64;

/** The header names and values maskHeader remembers, in characters (tests). */
export function rememberedHeaderChars(): number {
  let n = 0;
  for (const [name, value] of rememberedHeaders) n += name.length + value.length;
  return n;
}

/**
 * An array that is a header list as JavaScript writes one, with each credential header's value masked
 * as maskHeader masks it (a cookie keeps its name): an entry `[name, value]` (spreading a `Headers` or a
 * `Map`, `Object.entries`) or Node's flat `rawHeaders`, `[name, value, name, value…]`. Both are an
 * even number of strings whose even items are HTTP tokens; a heuristic kept to that one shape. Any other
 * array, and a list with no credential header, is returned as it is (the same array), after a scan
 * that stops at the first item out of shape: the array walkers of log contexts and profiles call this
 * on every array.
 */
export function maskHeaderList(items: readonly unknown[]): readonly unknown[] {
  const n = items.length;
  if (n === 0 || n % 2 !== 0) return items;
  let secret = false;
  for (let i = 0; i < n; i += 2) {
    const name = items[i];
    if (typeof name !== 'string' || typeof items[i + 1] !== 'string' || !HTTP_TOKEN.test(name)) return items;
    secret ||= isSecretHeader(name.toLowerCase());
  }
  if (!secret) return items;
  const out = items.slice();
  for (let i = 0; i < n; i += 2) {
    const name = (items[i] as string).toLowerCase();
    if (isSecretHeader(name)) out[i + 1] = maskHeader(name, items[i + 1] as string);
  }
  return out;
}

/**
 * Masked, bounded headers (lower-case names) from a flat list: name, value, name, value… (what
 * `ResponseHeaders.lines()` and `HeaderBag.lines()` give, without an iterator per request). A plain
 * object, not a null-prototype one: V8 keeps those as dictionaries, which the profile's JSON writer
 * walks several times slower.
 */
export function maskHeaders(lines: readonly string[], maxHeaders = 100, maxLength = 4096): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (let i = 0; i + 1 < lines.length; i += 2) if ((n = addHeader(out, lines[i]!, lines[i + 1]!, n, maxHeaders, maxLength)) < 0) break;
  return out;
}

/** Adds one header to `out`, `n` distinct names being kept so far: the new count, or -1 once the bound is reached (and noted). */
function addHeader(out: Record<string, string>, name: string, value: string, n: number, maxHeaders: number, maxLength: number): number {
  const key = name.toLowerCase();
  const masked = maskHeader(key, value, maxLength);
  if (Object.hasOwn(out, key)) {
    defineOwn(out, key, key === 'set-cookie' ? `${out[key]}\n${masked}` : `${out[key]}, ${masked}`);
    return n;
  }
  if (n >= maxHeaders) {
    defineOwn(out, '…', 'more headers not kept');
    return -1;
  }
  defineOwn(out, key, masked);
  return n + 1;
}

/**
 * The raw request body with secret fields masked: JSON and form bodies field by field, anything else
 * (multipart, text) by pattern. Bounded to `max` characters.
 */
export function maskContent(content: string, contentType: string, max: number): string {
  const last = lastCleanContent;
  if (last !== null && last.content === content && last.contentType === contentType && last.max === max) return last.masked;
  const { masked, clean } = maskContentOnce(content, contentType, max);
  if (clean && content.length <= MAX_REMEMBERED_CONTENT) lastCleanContent = { content, contentType, max, masked };
  return masked;
}

/**
 * The last body in which masking found nothing to hide, and what maskContent made of it: clients
 * send the same body again and again (retries, forms, benchmarks). A body with anything masked is
 * never kept: nothing secret outlives its request.
 */
let lastCleanContent: { content: string; contentType: string; max: number; masked: string } | null = null;
const MAX_REMEMBERED_CONTENT = 16 * 1024;

/** The body maskContent remembers, if any (tests). */
export function rememberedContent(): string | null {
  return lastCleanContent?.content ?? null;
}

/** maskContent, and whether no field or pattern was masked (`clean`). */
function maskContentOnce(content: string, contentType: string, max: number): { masked: string; clean: boolean } {
  const type = contentType.toLowerCase();
  let out: string | null = null;
  let clean = false;
  const trimmed = content.trimStart();
  if (type.includes('json') || ((trimmed.startsWith('{') || trimmed.startsWith('[')) && content.length <= 1024 * 1024)) {
    try {
      const parsed: unknown = JSON.parse(content);
      const sanitized = sanitize(parsed, { depth: 12, keys: 1000, items: 1000, string: 65536 });
      out = JSON.stringify(sanitized, null, 2);
      clean = sameJson(parsed, sanitized);
    } catch {
      out = null;
    }
  }
  if (out === null && type.includes('x-www-form-urlencoded')) {
    out = content
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 0) return pair;
        return isSecretParameter(safeDecode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${MASK}` : maskEncodedCredentials(pair);
      })
      .join('&');
  }
  if (out === null) {
    out = maskByPattern(content, contentType);
    clean = out === content;
  } else if (!clean) {
    clean = out === content;
  }
  return { masked: out.length > max ? out.slice(0, max) : out, clean };
}

/**
 * Field names in free text, each read whole (`(?=(run))\1` cannot backtrack into the run) and only after
 * the character that opens one: a JSON key's quote, `name=` in a multipart header, a form separator.
 * Whether the name is a secret's is isSecretName's answer on the name alone, as for parsed bodies.
 * Written as alternations of greedy runs around secret words, these patterns took time quadratic in a
 * long run of name characters (seconds for a 100 KB body, the event loop blocked meanwhile).
 */
const RUN = '[A-Za-z0-9_\\-\\[\\].]*';
/** A JSON key may spell characters as `\u` and four hex digits (`"pass\u0077ord"`); invalid JSON may quote with `'`. */
const JSON_RUN = '(?:[A-Za-z0-9_\\-\\[\\].]|\\\\u[0-9A-Fa-f]{4})*';
const JSON_KEY = new RegExp(`(?:"(?=(${JSON_RUN}))\\1"|'(?=(${JSON_RUN}))\\2')\\s*:\\s*`, 'g');
const JSON_VALUE = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,}\]\s]+/y;
// The field name quoted as browsers send it, or in single quotes or bare, as other clients do.
const MULTIPART_NAME = new RegExp(`name=(?:"(?=(${RUN}))\\1"|'(?=(${RUN}))\\2'|(?=(${RUN}))\\3(?=[;\\s]))`, 'gi');
const FORM_KEY = new RegExp(`(?:^|[&\\s?;])(?=(${RUN}))\\1=`, 'g');
const FORM_VALUE = /[^&\s]*/y;

/** Where a value starts and ends, read from `from` (just after its field name); null: none there. */
type ValueReader = (text: string, from: number) => readonly [start: number, end: number] | null;

function stickyValue(pattern: RegExp): ValueReader {
  return (text, from) => {
    pattern.lastIndex = from;
    return pattern.exec(text) === null ? null : [from, pattern.lastIndex];
  };
}

/**
 * A multipart field's value: from the blank line that ends its part's headers to the line break before
 * the next boundary line (`--…`), however many lines it has (a PEM key). The blank line found last is
 * remembered, so that many names before the same blank line (or with none after them) cost one search
 * in all; a value ends where the scan goes on.
 */
function multipartValue(boundary: string): ValueReader {
  // The delimiter line of the body's own boundary; without one, any line starting with `--`.
  const next = `\n--${boundary}`;
  let searchedFrom = -1;
  let blank = -1; // index of the `\n` that ends the last header line, or -1: none after searchedFrom
  return (text, from) => {
    if (!(searchedFrom >= 0 && from >= searchedFrom && (blank < 0 || from <= blank))) {
      searchedFrom = from;
      const lf = text.indexOf('\n\n', from);
      const crlf = text.indexOf('\n\r\n', from);
      blank = lf < 0 ? crlf : crlf < 0 ? lf : Math.min(lf, crlf);
    }
    if (blank < 0) return null;
    const start = text.charCodeAt(blank + 1) === 0x0d ? blank + 3 : blank + 2;
    const delimiter = text.indexOf(next, start);
    let end = delimiter < 0 ? text.length : delimiter;
    if (end > start && text.charCodeAt(end - 1) === 0x0d) end--;
    return [start, Math.max(start, end)];
  };
}

/**
 * Each value whose field name `key` finds and SECRET_WORD accepts, replaced by `masked`. Where no
 * value follows a name, the scan goes on from the next character.
 */
function maskFields(text: string, key: RegExp, readValue: ValueReader, masked: string): string {
  let out = '';
  let copied = 0;
  key.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = key.exec(text)) !== null) {
    const name = m[1] ?? m[2] ?? m[3] ?? '';
    const value = name !== '' && isSecretName(unescapeKey(name)) ? readValue(text, key.lastIndex) : null;
    if (value === null) {
      key.lastIndex = m.index + 1;
      continue;
    }
    out += text.slice(copied, value[0]) + masked;
    copied = value[1];
    key.lastIndex = Math.max(value[1], m.index + 1);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** `\u` escapes (four hex digits each) of a JSON key read as the characters they spell. */
function unescapeKey(name: string): string {
  return name.includes('\\u') ? name.replace(/\\u([0-9A-Fa-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : name;
}

/** The `boundary` parameter of a multipart content type, or '' (RFC 2046: 1–70 characters, maybe quoted). */
function multipartBoundary(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m === null ? '' : (m[1] ?? m[2] ?? '');
}

function maskByPattern(content: string, contentType: string): string {
  let out = maskFields(content, JSON_KEY, stickyValue(JSON_VALUE), `"${MASK}"`);
  out = maskFields(out, MULTIPART_NAME, multipartValue(multipartBoundary(contentType)), MASK);
  out = maskFields(out, FORM_KEY, stickyValue(FORM_VALUE), MASK);
  return scrubText(out);
}
