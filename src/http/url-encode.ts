/** Text codings shared by URLs, headers and messages: rawurlencode, well-formed strings, query decoding, header bytes. */

/**
 * PHP's rawurlencode (RFC 3986): everything but A-Z a-z 0-9 - _ . ~ percent-encoded as UTF-8, so the
 * result is safe in a header, a URL or a query string. A lone surrogate, which has no UTF-8 form and
 * would make encodeURIComponent throw, is encoded as U+FFFD.
 */
export function rawUrlEncode(s: string): string {
  // Each replace only when there is something to replace: every debug error response encodes its message.
  const encoded = encodeURIComponent(wellFormed(s));
  return KEPT_BY_ENCODE.test(encoded) ? encoded.replace(KEPT_BY_ENCODES, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()) : encoded;
}

/** `s` with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, for every host). */
export function wellFormed(s: string): string {
  return SURROGATE.test(s) ? s.replace(SURROGATES, (c, i: number, all: string) => (isPaired(all, i) ? c : '\uFFFD')) : s;
}

/** Whether `s` has no lone surrogate (String.prototype.isWellFormed, for every host). */
export function isWellFormedText(s: string): boolean {
  return wellFormed(s) === s;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const SURROGATES = /[\uD800-\uDFFF]/g;
/** What encodeURIComponent leaves as it is and rawurlencode does not. */
const KEPT_BY_ENCODE = /[!'()*]/;
const KEPT_BY_ENCODES = /[!'()*]/g;

function isPaired(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c <= 0xdbff) return i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
  return i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
}

/**
 * PHP's urldecode, as `$_GET`, `$_POST` and `parse_str` decode names and values: `+` is a space, each
 * valid `%XX` is that byte, any other `%` stays as written (`50%+off` is `50% off`), and the bytes are
 * read as UTF-8. The profiler's masking decodes names with it too, so it reads a name as the app does.
 * Never throws.
 */
export function safeDecode(s: string): string {
  const spaced = s.indexOf('+') < 0 ? s : s.replace(PLUSES, ' ');
  return spaced.indexOf('%') < 0 ? spaced : percentDecode(spaced);
}

/** PHP's rawurldecode (request cookie values): as safeDecode, but `+` stays a `+`. */
export function rawUrlDecode(s: string): string {
  return s.indexOf('%') < 0 ? s : percentDecode(s);
}

const PLUSES = /\+/g;
/**
 * Not fatal: bytes that are no UTF-8 (`%E9`, a Latin-1 `é`) become U+FFFD. PHP keeps such bytes as they
 * are; a JS string cannot hold them, so here a value differs from PHP's only when PHP's is not UTF-8.
 * ignoreBOM keeps an escaped byte-order mark (`%EF%BB%BF`) as the U+FEFF it is: the default decoder
 * dropped it from the start of every run of escapes, so `%EF%BB%BF_method` was the name `_method`.
 */
const utf8Lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** Each run of valid `%XX` escapes decoded as UTF-8 bytes; the text between runs, and a stray `%`, kept. */
function percentDecode(s: string): string {
  let out = '';
  let copied = 0;
  for (let at = s.indexOf('%'); at >= 0; ) {
    let end = at;
    const bytes: number[] = [];
    while (end + 2 < s.length && s.charCodeAt(end) === 0x25) {
      const byte = hexByte(s, end + 1);
      if (byte < 0) break;
      bytes.push(byte);
      end += 3;
    }
    if (bytes.length === 0) {
      at = s.indexOf('%', at + 1);
      continue;
    }
    // A UTF-8 sequence is bytes >= 0x80 only, which only escapes give: decoding run by run reads it whole.
    out += s.slice(copied, at) + utf8Lenient.decode(Uint8Array.from(bytes));
    copied = end;
    at = s.indexOf('%', end);
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** The byte written by the two hex digits at `at`, or -1. */
function hexByte(s: string, at: number): number {
  const high = hexDigit(s.charCodeAt(at));
  const low = hexDigit(s.charCodeAt(at + 1));
  return high < 0 || low < 0 ? -1 : (high << 4) | low;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as the client wrote it. Hosts hand header bytes over as Latin-1 characters, so a UTF-8
 * `é` arrives as `Ã©`; when the value is valid UTF-8 it is decoded, otherwise it stays as it is.
 */
export function headerText(value: string): string {
  let high = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0xff) return value;
    if (c >= 0x80) high = true;
  }
  if (!high) return value;
  try {
    return utf8.decode(Uint8Array.from(value, (ch) => ch.charCodeAt(0)));
  } catch {
    return value;
  }
}

/**
 * One character (a whole code point: `u`) that a Location must carry percent-encoded: controls, space and
 * non-ASCII, and the ASCII characters RFC 3986 does not allow in a URI (`"<>\^`{|}`), which a client may
 * send raw in its target. Encoding them keeps the query's meaning and echoes nothing unescaped (§10).
 * `%` is not among them, so encoding an already encoded URL changes nothing.
 */
export const UNSAFE_LOCATION_CHAR = /[^\x21-\x7e]|["<>\\^`{|}]/gu;

/** UTF-8 percent-encoding of one code point; a lone surrogate (no UTF-8 form) becomes U+FFFD. */
export function encodeLocationChar(c: string): string {
  return encodeURIComponent(wellFormed(c));
}
