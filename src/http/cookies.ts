/** Cookie header parsing and Set-Cookie serialisation (Symfony's Cookie::__toString shape). */

import { rawUrlDecode, rawUrlEncode } from './url-encode.ts';

/**
 * The name-value pairs of a Cookie header as PHP's php_default_treat_data reads them for `$_COOKIE`:
 * split on `;` (empty parts skipped), blanks before the name dropped, an empty name skipped, a name
 * without `=` given the value `''`. Names stay as sent (PHP no longer decodes them); values are
 * rawurldecoded (`+` stays), with their quotes and any blanks around them kept, as PHP keeps them.
 * PHP's variable-name rules (`a.b` → `a_b`, `a[x]` nesting, the first cookie of a name kept) are
 * applied where the pairs are added (request.ts, `addParameter`).
 */
export function parseCookieHeader(header: string): [name: string, value: string][] {
  const pairs: [string, string][] = [];
  for (const part of header.split(';')) {
    let start = 0;
    while (start < part.length && isBlank(part.charCodeAt(start))) start++;
    const eq = part.indexOf('=');
    if (start === part.length || eq === start) continue;
    pairs.push(eq < 0 ? [part.slice(start), ''] : [part.slice(start, eq), rawUrlDecode(part.slice(eq + 1))]);
  }
  return pairs;
}

/** C's isspace, which PHP skips before a cookie name. */
function isBlank(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

export interface CookieOptions {
  /**
   * Absolute expiry; omitted, or at or before 1970-01-01T00:00:00Z (Symfony's `expire` 0 and below), = a
   * session cookie. To delete a cookie, use clearCookie.
   */
  expires?: Date;
  maxAge?: number;
  path?: string;
  domain?: string;
  /**
   * Omitted = secure when the response answers an HTTPS request (Symfony's null, which Response::prepare
   * turns on with Cookie::setSecureDefault); false = never, true = always.
   */
  secure?: boolean;
  httpOnly?: boolean;
  /**
   * Omitted = `lax`, Symfony 5's Cookie default; null or `''` = no SameSite attribute (what Symfony's
   * clearCookie sends unless told otherwise; Cookie::withSameSite reads `''` as null). Any case is
   * accepted and sent lower-cased (withSameSite).
   */
  sameSite?: 'lax' | 'strict' | 'none' | 'Lax' | 'Strict' | 'None' | '' | null;
}

/** An RFC 9110 token: a header name (response.ts), and the cookie names the configuration accepts. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SAME_SITE = new Set(['lax', 'strict', 'none']);
/**
 * A cookie name that is written as it is: visible ASCII but `=`, `,` and `;`. Symfony's Cookie accepts
 * any name and percent-encodes only `=,; \t\r\n\v\f` (RESERVED_CHARS_LIST, Cookie::__toString), so
 * PHP's `cart[42]` names (read back as `{ cart: { 42: … } }`) are set as written; the characters it
 * would encode, blanks, controls and non-ASCII throw here instead.
 */
const COOKIE_NAME = /^[\x21-\x2b\x2d-\x3a\x3c\x3e-\x7e]+$/;

function cookieDate(d: Date): string {
  // Symfony: D, d-M-Y H:i:s T
  const u = d.toUTCString(); // "Sun, 22 Nov 2026 10:00:00 GMT"
  const [dow, day, mon, year, time] = u.split(' ');
  return `${dow} ${day}-${mon}-${year} ${time} GMT`;
}

/** The latest time a Date can hold (year 275760), in ms: https://tc39.es/ecma262/#sec-time-values-and-time-range */
const LATEST_TIME = 8.64e15;

/**
 * The expiry `maxAge` seconds from now, held within what a Date can write: PHP's gmdate writes any year,
 * but a JavaScript Date past year 275760 (or before 1970 here) is "Invalid Date", which would be sent as
 * the cookie's expiry. Browsers cap a cookie's life at 400 days anyway (RFC 6265bis), so the clamp
 * changes nothing they keep.
 */
function expiryFromNow(maxAge: number): number {
  return Math.min(LATEST_TIME, Math.max(0, Date.now() + maxAge * 1000));
}

/** RFC 6265 path-value (and a domain): ASCII without controls and without ";", which would start another attribute. */
const ATTRIBUTE_RE = /^[\x20-\x3a\x3c-\x7e]*$/;

/**
 * `name=value; expires=...; Max-Age=...; path=/; secure; httponly; samesite=lax` (Cookie::__toString). The
 * value is rawurlencoded (Symfony's default; a lone surrogate becomes U+FFFD instead of throwing); a
 * name, path or domain that would break the line (`;`, CR, LF, controls, non-ASCII) throws where the
 * cookie is set, as Symfony's Cookie constructor does for names. An empty path is `/` and Max-Age is
 * whole seconds, never negative (Cookie::getMaxAge is `max(0, expire - time())` over integers).
 */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (!COOKIE_NAME.test(name)) throw new Error(`The cookie name ${JSON.stringify(name)} contains invalid characters.`);
  for (const attribute of ['path', 'domain'] as const) {
    const given = options[attribute];
    if (given !== undefined && (typeof given !== 'string' || !ATTRIBUTE_RE.test(given))) {
      throw new Error(`The cookie ${attribute} ${JSON.stringify(given)} contains invalid characters.`);
    }
  }
  if (options.maxAge !== undefined && !Number.isFinite(options.maxAge)) throw new Error(`The cookie Max-Age ${String(options.maxAge)} is not a finite number.`);
  if (options.expires !== undefined && !Number.isFinite(options.expires.getTime())) throw new Error('The cookie expiry is not a valid date.');
  // Symfony's Cookie lower-cases SameSite (withSameSite, where '' is null) and defaults it to lax since 5.0.
  const sameSite = options.sameSite === undefined ? 'lax' : options.sameSite === null || options.sameSite === '' ? null : String(options.sameSite).toLowerCase();
  if (sameSite !== null && !SAME_SITE.has(sameSite)) throw new Error(`The cookie SameSite ${JSON.stringify(options.sameSite)} is not lax, strict or none.`);
  const maxAge = options.maxAge === undefined ? undefined : Math.floor(options.maxAge);
  // Cookie::expiresTimestamp: the expiry's whole second (format('U')), and none at all (a session cookie)
  // unless it is after 1970-01-01T00:00:00Z.
  const expire = options.expires === undefined ? 0 : Math.floor(options.expires.getTime() / 1000);
  let out: string;
  if (value === '') {
    out = `${name}=deleted; expires=${cookieDate(new Date(Date.now() - 31536001000))}; Max-Age=0`;
  } else {
    out = `${name}=${rawUrlEncode(value)}`;
    if (expire > 0) {
      // Cookie::getMaxAge: that second minus time()'s, so Max-Age agrees with the `expires` written.
      const seconds = maxAge ?? expire - Math.floor(Date.now() / 1000);
      out += `; expires=${cookieDate(options.expires!)}; Max-Age=${Math.max(0, seconds)}`;
    } else if (maxAge !== undefined) {
      out += `; expires=${cookieDate(new Date(expiryFromNow(maxAge)))}; Max-Age=${Math.max(0, maxAge)}`;
    }
  }
  out += `; path=${options.path || '/'}`;
  if (options.domain) out += `; domain=${options.domain}`;
  if (options.secure) out += '; secure';
  if (options.httpOnly ?? true) out += '; httponly';
  if (sameSite !== null) out += `; samesite=${sameSite}`;
  return out;
}

/**
 * Refuses a cookie name that request.cookies can never find. Cookies are read as PHP fills `$_COOKIE`,
 * which turns `.` in a name into `_` (the only character of an HTTP token it changes): a cookie set as
 * `my.sid` comes back as `my_sid`, so its session (or remember-me login) would be silently lost on every
 * request. FrameworkBundle's Configuration refuses such a session name the same way
 * (`framework.session.name`: "Session name %s contains illegal character(s)", the parse_str check).
 */
export function assertReadableCookieName(option: string, name: string): void {
  if (name.includes('.')) {
    throw new Error(`${option} "${name}" contains illegal character(s): request cookies are read as PHP reads them, which turns "." into "_" ("${name.replace(/\./g, '_')}"), so this cookie would never be found again.`);
  }
}
