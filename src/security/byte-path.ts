/**
 * PHP strings are bytes, and Symfony's RequestMatcher runs `preg_match('{'.$path.'}', rawurldecode($pathInfo))`
 * without the `u` modifier: PCRE then reads pattern and path byte by byte, so `.` or `[^/]` is one byte of
 * an `é` (two in UTF-8) and `{2}` counts bytes. The string patterns of access_control rules and firewalls
 * are matched here as PHP matches them: pattern and path as "byte strings", one character (U+0000–U+00FF)
 * per byte. ASCII text is its own byte string, so only non-ASCII patterns and paths with escapes pay.
 */

const encoder = new TextEncoder();
const NON_ASCII = /[^\x00-\x7F]/;

/** `s` as its UTF-8 bytes, one character each (a lone surrogate is U+FFFD's bytes, as TextEncoder writes it). */
export function utf8ByteString(s: string): string {
  if (!NON_ASCII.test(s)) return s;
  let out = '';
  for (const byte of encoder.encode(s)) out += String.fromCharCode(byte);
  return out;
}

const ESCAPE = /%([0-9A-Fa-f]{2})/g;

/**
 * PHP's rawurldecode as a byte string: each valid `%XX` is that byte (bytes that are no UTF-8, `%FF`,
 * included, where a decoded JS string would hold U+FFFD), a `%` that starts no escape stays, `+` stays.
 */
export function rawUrlDecodeBytes(path: string): string {
  const bytes = utf8ByteString(path);
  return bytes.indexOf('%') < 0 ? bytes : bytes.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
