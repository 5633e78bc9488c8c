import { combineHeaderParts, quoteHeader, splitHeader } from '../http/header-utils.ts';

/**
 * Cache-Control handling shared by ResponseListener, HttpCacheListener and SessionListener, following
 * Symfony's ResponseHeaderBag: directives are rendered sorted, `, `-separated; a response without any
 * directive is `no-cache, private` (or `private, must-revalidate` when it has Last-Modified/Expires);
 * one without public/private/s-maxage gets `private`.
 */

export type Directives = Map<string, string | true>;

/**
 * HeaderBag::parseCacheControl: HeaderUtils::split(header, ',=') and ::combine (http/header-utils.ts), so
 * directives split at commas outside quoted strings, names lower-cased, quoted values unquoted
 * (`no-cache="set-cookie, x-id"` is one directive), a directive without a value `true`.
 */
export function parseCacheControl(header: string): Directives {
  return combineHeaderParts(splitHeader(header, ',=') as string[][]);
}


/** HeaderUtils::toString(directives, ','): sorted by name (ksort), `, `-separated. */
export function serializeCacheControl(directives: Directives): string {
  const keys = [...directives.keys()].sort();
  const parts: string[] = [];
  for (const key of keys) {
    const value = directives.get(key)!;
    parts.push(value === true ? key : `${key}=${quoteHeader(value)}`);
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

/** An ISO 8601 date-time (`T` or a space between date and time) without an offset (`Z`, `+02:00`). */
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?$/;

/**
 * An HTTP date (`Sun, 22 Nov 2026 10:00:00 GMT`) from a Date, a date string or unix seconds; null when
 * invalid. A date-time written without an offset is UTC, as strtotime reads it under PHP's default zone
 * (Sensio's `expires`, a `lastModified` DateTime built from such a string): `new Date` would read it in
 * the host's zone, so a host west of UTC sent a later Expires and Last-Modified, and answered 200 to an
 * If-Modified-Since that matched. A plain date (`2037-01-01`) is UTC in ECMAScript already.
 */
export function httpDate(value: unknown): string | null {
  let date: Date;
  if (value instanceof Date) date = value;
  else if (typeof value === 'number') date = new Date(value * 1000);
  else if (typeof value === 'string') {
    const text = value.trim();
    date = new Date(LOCAL_DATE_TIME.test(text) ? `${text.replace(' ', 'T')}Z` : value);
  } else return null;
  return Number.isNaN(date.getTime()) ? null : date.toUTCString();
}
