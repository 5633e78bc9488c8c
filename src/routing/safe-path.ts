/**
 * Guards for paths that end up in a `Location` header.
 *
 * A path that starts with `//` or `/\` is read by browsers as a network-path reference (another host):
 * `Location: //evil.com/` is an open redirect. Browsers also strip tab/CR/LF inside URLs, WHATWG URL turns
 * `\` into `/`, and some clients percent-decode the start of a Location (cloudflare/vinext PR #888:
 * `/%5Cevil.com`). So "starts with `//`" has to be checked in every spelling.
 */

const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * True when `path` must never be used as a redirect target: after its leading `/`, the next meaningful
 * character is `/` or `\`, where control characters and spaces are skipped and percent-escapes (any case,
 * nested like `%252F`) are decoded first. Also true for anything that does not start with exactly one
 * `/` (a relative or empty path, or a scheme).
 */
export function isUnsafeRedirectPath(path: string): boolean {
  if (path.length === 0 || path.charCodeAt(0) !== 0x2f /* / */) return true;
  let rest = path.slice(1);
  // Each iteration removes at least one character (an escape `%XX` becomes one char), so this terminates.
  for (let guard = 0; guard < 4096 && rest.length > 0; guard++) {
    const code = rest.charCodeAt(0);
    if (code === 0x2f || code === 0x5c) return true; // '/' or '\'
    if (code <= 0x20 || code === 0x7f) {
      rest = rest.slice(1); // tab, CR, LF, NUL, space, DEL: skipped by URL parsers or by browsers
      continue;
    }
    if (code === 0x25 /* % */ && rest.length >= 3 && HEX.test(rest.slice(1, 3))) {
      rest = String.fromCharCode(parseInt(rest.slice(1, 3), 16)) + rest.slice(3);
      continue;
    }
    return false;
  }
  return rest.length > 0; // only reached when the guard ran out: refuse
}

/**
 * Symfony's UrlGenerator hardening: a generated path starting with `//` would be a network path, and
 * `.`/`..` segments would be resolved by clients, so they are encoded (`/%2F…`, `%2E`).
 */
export function hardenGeneratedPath(path: string): string {
  let url = path;
  if (url.includes('/.')) {
    url = url.replace(/\/\.\.(?=\/|$)/g, '/%2E%2E').replace(/\/\.(?=\/|$)/g, '/%2E');
  }
  if (url.startsWith('//')) url = '/%2F' + url.slice(2);
  return url;
}
