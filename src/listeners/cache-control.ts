/**
 * Cache-Control handling shared by ResponseListener, HttpCacheListener and SessionListener, following
 * Symfony's ResponseHeaderBag: directives are rendered sorted, `, `-separated; a response without any
 * directive is `no-cache, private` (or `private, must-revalidate` when it has Last-Modified/Expires);
 * one without public/private/s-maxage gets `private`.
 */

/**
 * Request attribute set by ResponseListener when the Cache-Control it wrote is only the computed
 * default: later listeners (HTTP cache options, session) then start from no directives at all, as
 * Symfony's computed header does.
 */
export const DEFAULT_CACHE_CONTROL = '_default_cache_control';

export type Directives = Map<string, string | true>;

export function parseCacheControl(header: string): Directives {
  const out: Directives = new Map();
  for (const part of header.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    if (eq < 0) out.set(item.toLowerCase(), true);
    else {
      let value = item.slice(eq + 1).trim();
      if (value.length >= 2 && value[0] === '"' && value[value.length - 1] === '"') value = value.slice(1, -1);
      out.set(item.slice(0, eq).trim().toLowerCase(), value);
    }
  }
  return out;
}

export function serializeCacheControl(directives: Directives): string {
  const keys = [...directives.keys()].sort();
  const parts: string[] = [];
  for (const key of keys) {
    const value = directives.get(key)!;
    parts.push(value === true ? key : `${key}=${/[^A-Za-z0-9!#$%&'*+\-.^_`|~]/.test(value) ? `"${value.replace(/["\\]/g, '')}"` : value}`);
  }
  return parts.join(', ');
}

/** Symfony's computed Cache-Control value for a set of explicit directives. */
export function computedCacheControl(directives: Directives, hasValidators: boolean): string {
  if (directives.size === 0) return hasValidators ? 'private, must-revalidate' : 'no-cache, private';
  const header = serializeCacheControl(directives);
  if (directives.has('public') || directives.has('private') || directives.has('s-maxage')) return header;
  return `${header}, private`;
}

/** An HTTP date (`Sun, 22 Nov 2026 10:00:00 GMT`) from a Date, a date string or unix seconds; null when invalid. */
export function httpDate(value: unknown): string | null {
  let date: Date;
  if (value instanceof Date) date = value;
  else if (typeof value === 'number') date = new Date(value * 1000);
  else if (typeof value === 'string') date = new Date(value);
  else return null;
  return Number.isNaN(date.getTime()) ? null : date.toUTCString();
}
