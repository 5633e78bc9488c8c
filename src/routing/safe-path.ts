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
  // What is left to read is `pending` (the character the last escape decoded to, if not yet read) followed
  // by `path` from `i`. Nothing longer than a few characters is built per step: rebuilding the rest of the
  // path (`decoded + rest.slice(3)`) copied it at every step, so a 390 KB `/%09…%09` took 3 s of CPU.
  let pending = '';
  let i = 1;
  // Each step reads at least one character (an escape `%XX` becomes one char), so this terminates.
  for (let guard = 0; guard < 4096; guard++) {
    const head = pending + path.slice(i, i + 3);
    if (head.length === 0) return false;
    const code = head.charCodeAt(0);
    if (code === 0x2f || code === 0x5c) return true; // '/' or '\'
    let used: number;
    if (code <= 0x20 || code === 0x7f) used = 1; // tab, CR, LF, NUL, space, DEL: skipped by URL parsers or by browsers
    else if (code === 0x25 /* % */ && head.length >= 3 && HEX.test(head.slice(1, 3))) used = 3;
    else return false;
    i += Math.max(0, used - pending.length);
    pending = pending.slice(used);
    if (used === 3) pending = String.fromCharCode(parseInt(head.slice(1, 3), 16)) + pending;
  }
  return pending.length > 0 || i < path.length; // only reached when the guard ran out: refuse
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
