/** Cookie header parsing and Set-Cookie serialisation (Symfony's Cookie::__toString shape). */

export function parseCookieHeader(header: string | null): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name in out) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value[0] === '"' && value[value.length - 1] === '"') value = value.slice(1, -1);
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}

export interface CookieOptions {
  /** Absolute expiry; omitted = a session cookie. */
  expires?: Date;
  maxAge?: number;
  path?: string;
  domain?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'lax' | 'strict' | 'none';
}

/** An RFC 9110 token: a cookie name, and (response.ts) a header name. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SAME_SITE = new Set(['lax', 'strict', 'none']);

function cookieDate(d: Date): string {
  // Symfony: D, d-M-Y H:i:s T
  const u = d.toUTCString(); // "Sun, 22 Nov 2026 10:00:00 GMT"
  const [dow, day, mon, year, time] = u.split(' ');
  return `${dow} ${day}-${mon}-${year} ${time} GMT`;
}

/** RFC 6265 path-value (and a domain): ASCII without controls and without ";", which would start another attribute. */
const ATTRIBUTE_RE = /^[\x20-\x3a\x3c-\x7e]*$/;

/**
 * `name=value; expires=...; Max-Age=...; path=/; secure; httponly; samesite=lax`. The value is
 * percent-encoded (Symfony's default); a name, path or domain that would break the line (`;`, CR, LF,
 * controls, non-ASCII) throws where the cookie is set, as Symfony's Cookie constructor does for names.
 */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (!HTTP_TOKEN.test(name)) throw new Error(`The cookie name ${JSON.stringify(name)} contains invalid characters.`);
  for (const attribute of ['path', 'domain'] as const) {
    const given = options[attribute];
    if (given !== undefined && (typeof given !== 'string' || !ATTRIBUTE_RE.test(given))) {
      throw new Error(`The cookie ${attribute} ${JSON.stringify(given)} contains invalid characters.`);
    }
  }
  if (options.maxAge !== undefined && !Number.isFinite(options.maxAge)) throw new Error(`The cookie Max-Age ${String(options.maxAge)} is not a finite number.`);
  if (options.expires !== undefined && !Number.isFinite(options.expires.getTime())) throw new Error('The cookie expiry is not a valid date.');
  if (options.sameSite && !SAME_SITE.has(options.sameSite)) throw new Error(`The cookie SameSite ${JSON.stringify(options.sameSite)} is not lax, strict or none.`);
  let out: string;
  if (value === '') {
    out = `${name}=deleted; expires=${cookieDate(new Date(Date.now() - 31536001000))}; Max-Age=0`;
  } else {
    out = `${name}=${encodeURIComponent(value)}`;
    if (options.expires) {
      const maxAge = options.maxAge ?? Math.max(0, Math.round((options.expires.getTime() - Date.now()) / 1000));
      out += `; expires=${cookieDate(options.expires)}; Max-Age=${maxAge}`;
    } else if (options.maxAge !== undefined) {
      out += `; expires=${cookieDate(new Date(Date.now() + options.maxAge * 1000))}; Max-Age=${options.maxAge}`;
    }
  }
  out += `; path=${options.path ?? '/'}`;
  if (options.domain) out += `; domain=${options.domain}`;
  if (options.secure) out += '; secure';
  if (options.httpOnly ?? true) out += '; httponly';
  if (options.sameSite) out += `; samesite=${options.sameSite}`;
  return out;
}
