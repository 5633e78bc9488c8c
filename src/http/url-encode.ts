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
