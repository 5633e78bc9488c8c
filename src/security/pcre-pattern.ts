/**
 * Patterns the configuration writes as strings are read as Symfony reads them, with PCRE (access_control's
 * and the firewalls' RequestMatcher: `preg_match('{'.$pattern.'}', …)`), where JavaScript differs.
 */

/**
 * A pattern written for PCRE, as Symfony's `preg_match('{'.$path.'}', …)` reads it, where JavaScript
 * reads it otherwise: `$` (no `D` modifier) also matches before a final newline, so `^/admin/users$`
 * denies `/admin/users%0A`, which a `/admin/:page` route still serves (page `users\n`); `\A`, `\z` and
 * `\Z` are anchors, where JavaScript would read the letters and the rule would never match. PCRE's `.`
 * (PHP's newline is LF) takes a `\r`, JavaScript's does not: `^/admin/.+/edit$` let `/admin/7%0D/edit`
 * through, which an `/admin/:id/edit` route serves. `\s` is PCRE's six ASCII spaces, where JavaScript's
 * also takes the byte 0xA0 (in the UTF-8 of `à`, `ठ`…), so `\S+` stopped inside such a path.
 */
export function pcreAnchors(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[++i] ?? '';
      if (UNSHARED_ESCAPES.has(next) || (next === 'x' && source[i + 1] === '{')) throw new SyntaxError(unshared(`\\${next === 'x' ? 'x{' : next}`));
      if (next === 's' || next === 'S') out += inClass ? PCRE_SPACE_IN_CLASS[next] : PCRE_SPACE[next];
      else out += inClass ? c + next : next === 'A' ? '^' : next === 'z' ? '$' : next === 'Z' ? PCRE_END : c + next;
    } else if (inClass) {
      if (c === '[' && source[i + 1] === ':') throw new SyntaxError(unshared('a POSIX class ([:digit:] and the like)'));
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      if (source[i + 1] === '^') out += source[++i];
      // PCRE reads a `]` first in a class as a member; JavaScript would close an empty class there.
      if (source[i + 1] === ']') out += '\\' + source[++i];
    } else {
      out += c === '$' ? PCRE_END : c === '.' ? PCRE_DOT : c;
    }
  }
  return out;
}

/**
 * PCRE escapes that JavaScript (without `u`) compiles to something else, mostly the bare letter: `\h`
 * (horizontal space) would match an `h`, `\p{L}` a `p{L}`, `\e` an `e`; `\Q…\E` quotes nothing, `\x{41}`
 * is 41 `x`. A rule that silently never matches lets every request through, so these are refused when
 * the app is built. (`\s`, `\A`, `\z`, `\Z` are translated; the rest mean the same in both.)
 */
const UNSHARED_ESCAPES = new Set(['h', 'H', 'v', 'V', 'R', 'N', 'Q', 'E', 'K', 'G', 'X', 'C', 'p', 'P', 'e', 'a', 'o', 'g']);

function unshared(what: string): string {
  return `${what} means something else to JavaScript than to PCRE: write the characters it stands for (a class such as [0-9] or [ \\t]), or give the pattern as a RegExp`;
}

/** PCRE's `$` and `\Z`: the end, or before a newline that ends the subject. */
const PCRE_END = '(?=\\n?$)';

/** PCRE's `.` without the `s` modifier: anything but LF (JavaScript's also refuses `\r`, U+2028 and U+2029). */
const PCRE_DOT = '[^\\n]';

/** PCRE's `\s` and `\S` without `u`: HT, LF, VT, FF, CR and space (JavaScript's `\s` adds 0xA0 and Unicode spaces). */
const PCRE_SPACE: Record<'s' | 'S', string> = { s: '[\\t\\n\\v\\f\\r ]', S: '[^\\t\\n\\v\\f\\r ]' };
/** The same inside a class: the members themselves (`\S` as the ranges around them). */
const PCRE_SPACE_IN_CLASS: Record<'s' | 'S', string> = { s: '\\t\\n\\v\\f\\r ', S: '\\x00-\\x08\\x0E-\\x1F\\x21-\\uFFFF' };

/**
 * A configuration's string pattern compiled as PCRE reads it. Compiled as written first, so that a syntax
 * error quotes the pattern the application wrote, not its translation.
 */
export function compilePcre(source: string, flags = ''): RegExp {
  new RegExp(source, flags);
  return new RegExp(pcreAnchors(source), flags);
}
