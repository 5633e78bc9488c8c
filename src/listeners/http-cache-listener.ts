import type { KernelRequest } from '../http/request.ts';
import { HttpResponse, validatorsMatch } from '../http/response.ts';
import type { ControllerEvent, ResponseEvent } from '../kernel/events.ts';
import { listener, idleWhen, routeLacks } from '../kernel/hooks.ts';
import { httpDate, type Directives } from './cache-control.ts';

type Computed<T> = T | ((request: KernelRequest) => T | Promise<T>);

/** Seconds: a number or a numeric string (`'60'`), as Sensio's annotation takes them; a phrase is refused. */
export type CacheSeconds = number | string;

/** The `cache` route option (Sensio's @Cache). Durations are seconds. */
export interface CacheOptions {
  maxAge?: CacheSeconds;
  sMaxAge?: CacheSeconds;
  public?: boolean;
  private?: boolean;
  mustRevalidate?: boolean;
  maxStale?: CacheSeconds;
  staleWhileRevalidate?: CacheSeconds;
  staleIfError?: CacheSeconds;
  /** Absolute expiry: a Date, an HTTP/ISO date string, or unix seconds. */
  expires?: Date | string | number;
  vary?: string | string[];
  /** Entity tag (quoted for you unless already `"..."` or `W/"..."`), or a function computing it. */
  etag?: Computed<string>;
  /** Last modification: a Date, a date string or unix seconds, or a function computing it. */
  lastModified?: Computed<Date | string | number>;
}

const ETAG_ATTRIBUTE = '_cache_etag';
const LAST_MODIFIED_ATTRIBUTE = '_cache_last_modified';
const CACHEABLE_STATUSES = new Set([200, 203, 300, 301, 302, 304, 404, 410]);

/**
 * The controller that answers a conditional request whose validators still match, built as Sensio's
 * listener builds it: a Response given the validators, then setNotModified. Last-Modified goes, the
 * ETag stays, and Cache-Control keeps what Last-Modified made of it (`private, must-revalidate`).
 */
function notModifiedController(etag: string | null, lastModified: string | null): () => HttpResponse {
  return function notModified(): HttpResponse {
    const response = new HttpResponse('');
    if (lastModified !== null) response.headers.set('last-modified', lastModified);
    if (etag !== null) response.headers.set('etag', etag);
    return response.setNotModified();
  };
}

/**
 * SensioFrameworkExtraBundle's HttpCacheListener.
 * - onKernelController: with `etag`/`lastModified` in the `cache` option, computes them (functions may
 *   be async) and, when a GET/HEAD request's `If-None-Match`/`If-Modified-Since` still match, replaces
 *   the controller by one answering `304 Not Modified` — the real controller does not run — and stops
 *   kernel.controller there.
 * - onKernelResponse: for statuses 200, 203, 300, 301, 302, 304, 404, 410, applies the option:
 *   `s-maxage`, `max-age`, `must-revalidate`, `max-stale`, `stale-while-revalidate`, `stale-if-error`
 *   (each only when the response has none), `Expires`, `Vary`, `public`/`private`, `Last-Modified`,
 *   `ETag`. Directives are rendered like Symfony (sorted; `private` added when neither public,
 *   private nor s-maxage is set).
 */
export class HttpCacheListener {
  readonly onKernelController = idleWhen(
    listener<'kernel.controller'>('HttpCacheListener::onKernelController', 'HTTP cache annotation handling', (event: ControllerEvent) => {
      const request = event.request;
      const options = request.attributes.get('_cache') as CacheOptions | undefined;
      if (!options || (options.etag === undefined && options.lastModified === undefined)) return;
      const etag = options.etag === undefined ? undefined : evaluate(options.etag, request);
      let lastModified: unknown;
      try {
        lastModified = options.lastModified === undefined ? undefined : evaluate(options.lastModified, request);
      } catch (error) {
        // The request ends with this error; an etag still being computed must not reject unheard.
        if (isPromise(etag)) etag.catch(() => {});
        throw error;
      }
      if (isPromise(etag) || isPromise(lastModified)) {
        return Promise.all([etag, lastModified]).then(([e, l]) => validate(event, e as string | undefined, l as Date | string | number | undefined));
      }
      validate(event, etag as string | undefined, lastModified as Date | string | number | undefined);
    }),
    routeLacks('cache', '_cache'),
  );

  readonly onKernelResponse = listener<'kernel.response'>('HttpCacheListener::onKernelResponse', 'HTTP cache headers', (event: ResponseEvent) => {
    const request = event.request;
    const options = request.attributes.get('_cache') as CacheOptions | undefined;
    if (!options) return;
    const response = event.response;
    if (!CACHEABLE_STATUSES.has(response.status)) return;
    const headers = response.headers;
    const directives: Directives = headers.cacheControlDirectives();

    // Response::setSharedMaxAge, which Sensio calls: a shared max-age makes the response public (so a
    // response that used the session then gets max-age=0, not the shared age, from the SessionListener).
    if (setIfAbsent(directives, 's-maxage', options.sMaxAge)) {
      directives.delete('private');
      directives.set('public', true);
    }
    if (options.mustRevalidate) directives.set('must-revalidate', true);
    setIfAbsent(directives, 'max-age', options.maxAge);
    setIfAbsent(directives, 'max-stale', options.maxStale);
    setIfAbsent(directives, 'stale-while-revalidate', options.staleWhileRevalidate);
    setIfAbsent(directives, 'stale-if-error', options.staleIfError);
    if (options.expires !== undefined && !headers.has('expires')) {
      const expires = httpDate(options.expires);
      if (expires !== null) headers.set('expires', expires);
    }
    if (options.vary !== undefined) {
      const wanted = Array.isArray(options.vary) ? options.vary : [options.vary];
      const existing = (headers.get('vary') ?? '').split(',').map((v) => v.trim()).filter(Boolean);
      for (const v of wanted) if (!existing.some((e) => e.toLowerCase() === v.toLowerCase())) existing.push(v);
      if (existing.length) headers.set('vary', existing.join(', '));
    }
    if (options.private === true || options.public === false) {
      directives.delete('public');
      directives.set('private', true);
    }
    if (options.public === true || options.private === false) {
      directives.delete('private');
      directives.set('public', true);
    }
    const lastModified = request.attributes.get(LAST_MODIFIED_ATTRIBUTE);
    if (typeof lastModified === 'string' && !headers.has('last-modified')) headers.set('last-modified', lastModified);
    const etag = request.attributes.get(ETAG_ATTRIBUTE);
    if (typeof etag === 'string' && !headers.has('etag')) headers.set('etag', etag);

    // No directive: the default, unless Cache-Control was deleted (a 301 redirect) and none of ETag,
    // Last-Modified or Expires brought it back, as Sensio's listener then sets nothing.
    headers.writeCacheControl(directives);
  });
}

function isPromise(value: unknown): value is Promise<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as Promise<unknown>).then === 'function';
}

function evaluate<T>(value: Computed<T>, request: KernelRequest): T | Promise<T> {
  return typeof value === 'function' ? (value as (r: KernelRequest) => T | Promise<T>)(request) : value;
}

/** Sets the directive unless the response has it; true when it was set. */
function setIfAbsent(directives: Directives, name: string, value: CacheSeconds | undefined): boolean {
  if (value === undefined || directives.has(name)) return false;
  const seconds = Math.max(0, Math.floor(Number(value)));
  if (!Number.isFinite(seconds)) return false;
  // All digits, as PHP prints an int: String(1e21) is `1e+21`, which went out as max-age="1e+21".
  directives.set(name, BigInt(seconds).toString());
  return true;
}

/**
 * `"x"` for `x`; already quoted or weak tags are kept. What is not visible ASCII is percent-encoded
 * (UTF-8): an etag computed from a route value (`/posts/a%0Ab`, `/posts/%E2%82%AC`) is no valid header
 * value, and setting it made the request a 500. Sensio's HttpCacheListener::onKernelController never
 * meets this, as it sends hash('sha256', …) of the value; the same value still gives the same tag.
 */
export function quoteEtag(etag: string): string {
  const tag = etag.startsWith('"') || etag.startsWith('W/"') ? etag : `"${etag.replace(/"/g, '')}"`;
  return tag.replace(/[^\x21-\x7E]+/gu, headerSafe);
}

/** A run of characters an HTTP header cannot carry as they are, as UTF-8 percent-escapes. */
function headerSafe(run: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(run)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

function validate(event: ControllerEvent, etag: string | undefined, lastModified: Date | string | number | undefined): void {
  const request = event.request;
  const tag = etag === undefined || etag === null || etag === '' ? null : quoteEtag(String(etag));
  const modified = lastModified === undefined || lastModified === null ? null : httpDate(lastModified);
  if (tag !== null) request.attributes.set(ETAG_ATTRIBUTE, tag);
  if (request.isMethodCacheable() && validatorsMatch(request, tag, modified)) {
    event.setController(notModifiedController(tag, modified));
    // As Sensio's: the listeners after it (TemplateListener, an application's) are not called for a 304.
    event.stopPropagation();
  } else if (modified !== null) {
    request.attributes.set(LAST_MODIFIED_ATTRIBUTE, modified);
  }
}
