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

/** One query-string component decoded (`+` is a space); a malformed escape is kept as sent. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
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
