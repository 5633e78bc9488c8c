/**
 * Symfony 5.4's HeaderUtils::split, ::combine, ::unquote, ::quote and ::makeDisposition. Request::getTrustedValues
 * reads a `Forwarded` header with the first three: values are taken exactly as Symfony takes them, so a
 * quoted value holding a separator (`for="[2001:db8::1]:4711"`, `host="a,b"`), an escape, or a parameter
 * given twice in one element (the last wins) means the same thing to both.
 *
 * The split is a hand-written scanner that follows the PCRE pattern of HeaderUtils::split match by
 * match (a token: quoted strings and unquoted runs, no leading or trailing blank; or a separator with
 * the blanks around it), then groups the matches level by level as its groupParts does in Symfony 5.4's
 * later releases (after symfony/symfony#51819: at the last level the first separator starts the
 * value, and later ones stay in it).
 */

import { rawUrlEncode } from './url-encode.ts';

/** What HeaderUtils::split returns: nested lists of strings, one level per separator. */
export type HeaderParts = Array<string | HeaderParts>;

interface Match {
  readonly text: string;
  /** The separator character of a separator match; null for a token. */
  readonly separator: string | null;
}

/** PCRE's `\s` (space, tab, LF, VT, FF, CR). */
function isBlank(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** What PHP's trim() strips: space, tab, LF, CR, NUL and VT, not FF. */
function isTrimmed(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x00 || c === 0x0b;
}

/** PHP's trim(). */
export function phpTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isTrimmed(text.charCodeAt(start))) start++;
  while (end > start && isTrimmed(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** The matches preg_match_all finds in the trimmed header, in order. */
function scan(header: string, separators: string): Match[] {
  const text = phpTrim(header);
  const n = text.length;
  const isSeparator = (i: number) => separators.indexOf(text[i]) >= 0;
  const out: Match[] = [];
  let p = 0;
  while (p < n) {
    if (isBlank(text.charCodeAt(p))) {
      // Only a separator match may start on a blank; otherwise the blanks match nothing.
      let q = p;
      while (q < n && isBlank(text.charCodeAt(q))) q++;
      if (q < n && isSeparator(q)) p = separatorAt(text, p, q, out);
      else p = q;
    } else if (isSeparator(p)) {
      p = separatorAt(text, p, p, out);
    } else {
      let q = p;
      for (;;) {
        if (q < n && text[q] === '"') q = quotedEnd(text, q + 1);
        else if (q < n && !isSeparator(q)) while (q < n && text[q] !== '"' && !isSeparator(q)) q++;
        else break;
      }
      // `(?<!\s)`: a token gives back its trailing blanks.
      while (q > p + 1 && isBlank(text.charCodeAt(q - 1))) q--;
      out.push({ text: text.slice(p, q), separator: null });
      p = q;
    }
  }
  return out;
}

/** A separator match: the blanks from `start`, the separator at `at`, the blanks after it. Returns where it ends. */
function separatorAt(text: string, start: number, at: number, out: Match[]): number {
  let end = at + 1;
  while (end < text.length && isBlank(text.charCodeAt(end))) end++;
  out.push({ text: text.slice(start, end), separator: text[at] });
  return end;
}

/** The end of a quoted string whose opening quote is before `i`: after its closing quote, a lone backslash, or at the end. */
function quotedEnd(text: string, i: number): number {
  while (i < text.length) {
    const c = text[i];
    if (c === '"') return i + 1;
    if (c === '\\') {
      // `\\.`: an escaped character (PCRE's `.` is anything but LF); otherwise the backslash ends the string.
      if (i + 1 < text.length && text[i + 1] !== '\n') i += 2;
      else return i + 1;
    } else i++;
  }
  return i;
}

function groupParts(matches: readonly Match[], separators: string, first: boolean): HeaderParts {
  const separator = separators[0];
  const inner = separators.slice(1);
  if (inner === '' && !first) {
    // A name and its value: the first separator starts the value, later ones are part of it (`a=b=` is `b=`).
    const pair = [''];
    for (const match of matches) {
      if (pair.length === 1 && match.separator !== null) pair.push('');
      else pair[pair.length - 1] += unquoteHeader(match.text);
    }
    return pair;
  }
  const groups: Match[][] = [];
  let i = 0;
  for (const match of matches) {
    if (match.separator === separator) i++;
    else (groups[i] ??= []).push(match);
  }
  const parts: HeaderParts = [];
  for (const group of groups) {
    if (!group) continue;
    if (inner === '') {
      const unquoted = unquoteHeader(group[0].text);
      if (unquoted !== '') parts.push(unquoted);
    } else {
      parts.push(groupParts(group, inner, false));
    }
  }
  return parts;
}

/** HeaderUtils::split: the header split by each separator in turn, `separators` ordered by precedence (`,;=`). */
export function splitHeader(header: string, separators: string): HeaderParts {
  return groupParts(scan(header, separators), separators, true);
}

/** HeaderUtils::unquote: every quote dropped and every backslash escape resolved, wherever they are. */
export function unquoteHeader(text: string): string {
  return text.indexOf('"') < 0 && text.indexOf('\\') < 0 ? text : text.replace(/\\([^\n])|"/g, '$1');
}

/**
 * HeaderUtils::combine: name/value pairs as a map, names lower-cased as PHP's strtolower (ASCII only), a
 * name without a value `true`, a name given twice its last value.
 */
export function combineHeaderParts(pairs: readonly (readonly string[])[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (const [name, value] of pairs) out.set(name.replace(/[A-Z]+/g, (c) => c.toLowerCase()), value ?? true);
  return out;
}

/**
 * PCRE's `$` without the D modifier also matches before a final line feed, so HeaderUtils' patterns
 * accept `"a.txt\n"` where a JavaScript `$` would not; the `\n?` keeps that.
 */
const HEADER_TOKEN = /^[a-z0-9!#$%&'*.^_`|~-]+\n?$/i;
const PRINTABLE_ASCII = /^[\x20-\x7e]*\n?$/;

/**
 * HeaderUtils::quote: a token (RFC 9110 tchar) as it is, anything else a quoted string with `"` and
 * `\` backslash-escaped (addcslashes). The empty string is no token: it is `""`.
 */
export function quoteHeader(s: string): string {
  return HEADER_TOKEN.test(s) ? s : `"${s.replace(/["\\]/g, '\\$&')}"`;
}

/** The two dispositions HeaderUtils::makeDisposition takes (its DISPOSITION_ATTACHMENT and DISPOSITION_INLINE). */
export type Disposition = 'attachment' | 'inline';

/**
 * HeaderUtils::makeDisposition (RFC 6266), which ResponseHeaderBag::makeDisposition calls: a
 * Content-Disposition value that is ASCII whatever the file name, so it can be set on any host
 * (a raw `filename="résumé.csv"` went out as Latin-1 bytes, and a name beyond U+00FF could not be
 * set at all).
 *
 * `filename=` carries the fallback, quoted when it is no token; when the name differs from it,
 * `filename*=utf-8''` carries the name as rawurlencode writes it (its UTF-8 bytes, upper-case hex).
 * An empty fallback means the name itself, which must then be ASCII. Refused, with Symfony's messages
 * (its InvalidArgumentException; a TypeError here, one class for all four as there): a disposition
 * other than `attachment` or `inline` (case-sensitive), a fallback with a character outside U+0020–U+007E
 * or with a `%`, and a `/` or `\` in either name.
 *
 * As in Symfony, one final line feed in the fallback passes the ASCII check (see HEADER_TOKEN) and is
 * kept; ResponseHeaders.set then refuses the value, as PHP's header() refuses a line break.
 */
export function makeDisposition(disposition: Disposition, filename: string, filenameFallback = ''): string {
  // Checked at run time too: the value often comes from data, or from JavaScript without the type.
  if (disposition !== 'attachment' && disposition !== 'inline') throw new TypeError('The disposition must be either "attachment" or "inline".');
  const fallback = filenameFallback === '' ? filename : filenameFallback;
  if (!PRINTABLE_ASCII.test(fallback)) throw new TypeError('The filename fallback must only contain ASCII characters.');
  if (fallback.includes('%')) throw new TypeError('The filename fallback cannot contain the "%" character.');
  if (/[/\\]/.test(filename) || /[/\\]/.test(fallback)) throw new TypeError('The filename and the fallback cannot contain the "/" and "\\" characters.');
  // HeaderUtils::toString(['filename' => …, 'filename*' => …], ';'): the parameters joined by `; `.
  const value = `${disposition}; filename=${quoteHeader(fallback)}`;
  // `filename*`'s value is all `%XX` escapes and unreserved characters, a token: toString leaves it bare.
  return filename === fallback ? value : `${value}; filename*=${quoteHeader(`utf-8''${rawUrlEncode(filename)}`)}`;
}

const MONTHS: Readonly<Record<string, number>> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
/** IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` and the obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` (a one-digit day and `UTC` accepted, as strtotime accepts them). */
const IMF_OR_RFC850 = /^[A-Za-z]{3,9}, (\d{1,2})[ -]([A-Z][a-z]{2})[ -](\d{2}|\d{4}) (\d{2}):(\d{2}):(\d{2}) (?:GMT|UTC)$/;
/** asctime `Sun Nov  6 08:49:37 1994` (the day space-padded, or not). */
const ASCTIME = /^[A-Za-z]{3} ([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * An HTTP date (RFC 9110 §5.6.7: IMF-fixdate, RFC 850, asctime), in ms since the epoch; NaN for anything
 * else. All three are UTC — asctime carries no zone, and Date.parse reads it in the process's local
 * time, which turned an If-Modified-Since into a wrong 304 or a missed one away from UTC. Symfony reads
 * these headers with strtotime under PHP's default zone, UTC. A two-digit RFC 850 year is read as PHP
 * reads it: 70–99 are 19xx, 00–69 are 20xx.
 */
export function parseHttpDate(value: string): number {
  let day: string, month: string, year: string, hours: string, minutes: string, seconds: string;
  const imf = IMF_OR_RFC850.exec(value);
  if (imf !== null) [, day, month, year, hours, minutes, seconds] = imf as unknown as string[];
  else {
    const asc = ASCTIME.exec(value);
    if (asc === null) return NaN;
    [, month, day, hours, minutes, seconds, year] = asc as unknown as string[];
  }
  const monthIndex = MONTHS[month!];
  if (monthIndex === undefined) return NaN;
  let fullYear = Number(year!);
  if (year!.length === 2) fullYear += fullYear >= 70 ? 1900 : 2000;
  const h = Number(hours!), m = Number(minutes!), s = Number(seconds!), d = Number(day!);
  if (h > 23 || m > 59 || s > 60 || d < 1 || d > 31) return NaN;
  const ms = Date.UTC(fullYear, monthIndex, d, h, m, s);
  // 31 Feb and the like roll over in Date.UTC; they are no date.
  return new Date(ms).getUTCDate() === d ? ms : NaN;
}
