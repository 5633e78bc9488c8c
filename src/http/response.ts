import { HTTP_TOKEN, serializeCookie, type CookieOptions } from './cookies.ts';
import type { KernelRequest } from './request.ts';
import { encodeLocationChar, UNSAFE_LOCATION_CHAR } from './url-encode.ts';
import { makeDisposition, parseHttpDate, type Disposition } from './header-utils.ts';
import { computedCacheControl, httpDate, parseCacheControl, type Directives } from '../listeners/cache-control.ts';
import { remember } from './remember.ts';

export type ResponseBody = string | Uint8Array | ReadableStream<Uint8Array> | null;

/** Response headers: case-insensitive names (kept lower-case), `set-cookie` may repeat. */
export class ResponseHeaders {
  private readonly map = new Map<string, string>();
  private cookies: string[] | null = null;
  /**
   * The keys (cookieKey) of the Set-Cookie lines, built when setCookie first needs them: setting a cookie
   * whose key is new is then one lookup, not a parse of every line already set (an app clearing each of
   * a request's 1000 cookies blocked the event loop for half a second).
   */
  private cookieKeys: Set<string> | null = null;
  /**
   * For each Set-Cookie line, whether setCookie wrote it without a `secure` option: Symfony's Cookie then
   * holds `secure` null, which Response::prepare turns on for a secure request (Cookie::setSecureDefault).
   * A cookie given `secure: false`, one cleared without `secure` (ResponseHeaderBag::clearCookie's
   * default is false) and a line set raw (ResponseHeaderBag::set parses it with Cookie::fromString, whose
   * `secure` is false unless the line says it) stay as they are. Null while no line is so marked.
   */
  private secureDefaults: boolean[] | null = null;
  /**
   * Set while Cache-Control is only ResponseHeaderBag's computed default (setDefaultCacheControl): no
   * directive was set, so `no-cache` and `private` there are not the application's. Writing the header clears it.
   */
  private cacheControlIsDefault = false;
  /**
   * Set once Cache-Control was deleted (ResponseHeaderBag::remove, what RedirectResponse does for a 301):
   * ResponseListener then adds no default. Writing it, ETag, Last-Modified or Expires clears it, as
   * ResponseHeaderBag::set computes the header again for each of them.
   */
  private cacheControlRemoved = false;
  /**
   * Set once a value with a character beyond ASCII (U+0080–U+00FF) was set: hosts write header values
   * as Latin-1, and the Node adapter must then not send a string body together with the head, which
   * Node would encode as UTF-8 whole (the value's bytes would depend on the body and the method).
   */
  beyondAscii = false;

  constructor(init?: Record<string, string> | Iterable<[string, string]>) {
    if (!init) return;
    const entries = Symbol.iterator in Object(init) ? (init as Iterable<[string, string]>) : Object.entries(init);
    for (const [k, v] of entries) this.append(k, v);
  }

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (key === 'set-cookie') return this.cookies?.length ? this.cookies.join(', ') : null;
    return this.map.get(key) ?? null;
  }
  has(name: string): boolean {
    const key = name.toLowerCase();
    return key === 'set-cookie' ? !!this.cookies?.length : this.map.has(key);
  }
  /**
   * Replaces the header. A name that is not an HTTP token, or a value a host would refuse (CR, LF, NUL,
   * other controls but tab, characters above U+00FF), throws here, where the caller set it, instead of
   * when the host writes the response.
   */
  set(name: string, value: string): void {
    const key = headerKey(name);
    if (assertHeaderValue(value)) this.beyondAscii = true;
    if (key === 'set-cookie') {
      this.cookies = [value];
      this.cookieKeys = null;
      this.secureDefaults = null;
    } else {
      this.map.set(key, value);
      if (this.cacheControlIsDefault || this.cacheControlRemoved) this.afterCacheHeader(key);
    }
  }
  append(name: string, value: string): void {
    const key = headerKey(name);
    if (assertHeaderValue(value)) this.beyondAscii = true;
    if (key === 'set-cookie') {
      (this.cookies ??= []).push(value);
      this.cookieKeys?.add(cookieKey(value));
      this.secureDefaults?.push(false);
    } else {
      const prev = this.map.get(key);
      this.map.set(key, prev === undefined ? value : `${prev}, ${value}`);
      if (this.cacheControlIsDefault || this.cacheControlRemoved) this.afterCacheHeader(key);
    }
  }
  delete(name: string): void {
    const key = name.toLowerCase();
    if (key === 'set-cookie') {
      this.cookies = null;
      this.cookieKeys = null;
      this.secureDefaults = null;
    } else {
      // ResponseHeaderBag computes Cache-Control when Last-Modified or Expires is set, not when either is
      // removed: a response that had one keeps `private, must-revalidate` (Sensio's 304 after
      // setNotModified dropped Last-Modified). Computed here, before the header goes.
      if ((key === 'last-modified' || key === 'expires') && !this.cacheControlRemoved && !this.map.has('cache-control') && this.map.has(key)) this.setDefaultCacheControl();
      this.map.delete(key);
      if (key === 'cache-control') {
        this.cacheControlIsDefault = false;
        this.cacheControlRemoved = true;
      }
    }
  }
  /**
   * Writes Cache-Control as ResponseHeaderBag computes it: the directives rendered sorted, or without any
   * the computed default, unless the header was deleted and nothing has brought it back (a 301 redirect
   * then keeps none). Returns whether the computed default was written.
   */
  writeCacheControl(directives: Directives): boolean {
    if (directives.size > 0) {
      const computed = computedCacheControl(directives, this.map.has('last-modified') || this.map.has('expires'));
      if (computed !== this.map.get('cache-control') || this.cacheControlIsDefault) this.set('cache-control', computed);
      return false;
    }
    if (this.cacheControlRemoved) return false;
    // A default already written is current: every set of ETag, Last-Modified or Expires recomputed it,
    // and a removal must not (see delete).
    if (!this.cacheControlIsDefault) this.setDefaultCacheControl();
    return true;
  }
  /**
   * ResponseHeaderBag's Cache-Control when no directive is set: `no-cache, private`, or `private,
   * must-revalidate` with Last-Modified or Expires. Directives added later (setMaxAge, setPublic…)
   * start from none, as on Symfony's bag, instead of keeping this `no-cache`.
   */
  setDefaultCacheControl(): void {
    this.map.set('cache-control', this.map.has('last-modified') || this.map.has('expires') ? 'private, must-revalidate' : 'no-cache, private');
    this.cacheControlIsDefault = true;
    this.cacheControlRemoved = false;
  }
  /**
   * The computed default when Cache-Control is absent and was not deleted. Symfony's ResponseHeaderBag
   * computes it when the Response is built; here the ResponseListener writes it, so a response that a
   * later kernel.response listener put in place gets it from the kernel (CONTRACT §9: every response).
   */
  ensureCacheControl(): void {
    if (!this.cacheControlRemoved && !this.map.has('cache-control')) this.setDefaultCacheControl();
  }
  /** The Cache-Control directives set so far (HeaderBag's `cacheControl`): none while the header is the computed default. */
  cacheControlDirectives(): Directives {
    const current = this.cacheControlIsDefault ? undefined : this.map.get('cache-control');
    return current === undefined ? new Map() : parseCacheControl(current);
  }
  /**
   * After a header was written over the computed default or a removed Cache-Control: Cache-Control
   * written is the application's own; ETag, Last-Modified or Expires compute the default again
   * (ResponseHeaderBag::set, whose default ETag does not change).
   */
  private afterCacheHeader(key: string): void {
    if (key === 'cache-control') {
      this.cacheControlIsDefault = false;
      this.cacheControlRemoved = false;
    } else if (key === 'etag' || key === 'last-modified' || key === 'expires') this.setDefaultCacheControl();
  }
  /** All `Set-Cookie` lines. */
  getSetCookies(): string[] {
    return this.cookies ? [...this.cookies] : [];
  }
  /**
   * ResponseHeaderBag::setCookie: one cookie per name, path and domain (its `cookies[domain][path][name]`),
   * so clearing a cookie on one path and setting it on another sends both lines.
   */
  setCookie(name: string, value: string, options?: CookieOptions): void {
    const line = serializeCookie(name, value, options);
    const key = cookieKey(line);
    const keys = (this.cookieKeys ??= new Set((this.cookies ?? []).map(cookieKey)));
    // Only a key already set costs a pass over the lines (ResponseHeaderBag replaces that one cookie).
    if (keys.has(key)) this.removeCookieLines(key);
    keys.add(key);
    const cookies = (this.cookies ??= []);
    // `secure` not given (null or undefined): Symfony's Cookie::create default, null.
    const secureDefault = options?.secure === undefined || options.secure === null;
    if (secureDefault && this.secureDefaults === null) this.secureDefaults = cookies.map(() => false);
    cookies.push(line);
    this.secureDefaults?.push(secureDefault);
  }
  /** Drops the lines of one cookie key, keeping each remaining line's secure-default mark beside it. */
  private removeCookieLines(key: string): void {
    const marks = this.secureDefaults;
    const lines: string[] = [];
    const kept: boolean[] = [];
    this.cookies!.forEach((line, i) => {
      if (cookieKey(line) === key) return;
      lines.push(line);
      if (marks) kept.push(marks[i]!);
    });
    this.cookies = lines;
    if (marks) this.secureDefaults = kept;
  }
  /**
   * Response::prepare on a secure request: Cookie::setSecureDefault(true) makes `secure` the cookies
   * whose `secure` was not given (see secureDefaults); every other line is sent as it is.
   */
  setSecureDefault(): void {
    const marks = this.secureDefaults;
    if (!marks || !this.cookies) return;
    for (let i = 0; i < marks.length; i++) {
      if (!marks[i]) continue;
      this.cookies[i] = withSecure(this.cookies[i]!);
      marks[i] = false;
    }
  }
  /**
   * ResponseHeaderBag::clearCookie, whose SameSite defaults to none at all (null), not to the Cookie's
   * lax, and whose `secure` defaults to false, not to null: a cleared cookie is not made secure on HTTPS.
   */
  clearCookie(name: string, options?: CookieOptions): void {
    this.setCookie(name, '', { ...options, sameSite: options?.sameSite ?? null, secure: options?.secure ?? false });
  }
  /**
   * ResponseHeaderBag::makeDisposition: HeaderUtils::makeDisposition's value (http/header-utils.ts), for
   * `headers.set('content-disposition', headers.makeDisposition('attachment', name, 'download.csv'))`.
   * It sets nothing itself, as in Symfony.
   */
  makeDisposition(disposition: Disposition, filename: string, filenameFallback = ''): string {
    return makeDisposition(disposition, filename, filenameFallback);
  }
  /** Every header line, Set-Cookie repeated. */
  *entries(): IterableIterator<[string, string]> {
    yield* this.map.entries();
    if (this.cookies) for (const c of this.cookies) yield ['set-cookie', c];
  }
  /** Appends every line to `out` as name, value, name, value… (Set-Cookie repeated): no iterator, for writers. */
  appendTo(out: string[]): void {
    for (const [k, v] of this.map) out.push(k, v);
    if (this.cookies) for (const c of this.cookies) out.push('set-cookie', c);
  }
  /** Every line as name, value, name, value… (Set-Cookie repeated), in a new list. */
  lines(): string[] {
    const out: string[] = [];
    this.appendTo(out);
    return out;
  }
  /** Copies every line into a Fetch `Headers` (Set-Cookie appended once per cookie). */
  copyTo(target: Headers): void {
    for (const [k, v] of this.map) target.set(k, v);
    if (this.cookies) for (const c of this.cookies) target.append('set-cookie', c);
  }
  toObject(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = Object.fromEntries(this.map);
    if (this.cookies?.length) out['set-cookie'] = [...this.cookies];
    return out;
  }
}

/**
 * What ResponseHeaderBag keys a cookie by: name, path (`/` when absent or empty, as Cookie::fromString
 * reads it) and domain, read back from the line so that lines appended raw are keyed the same way.
 */
function cookieKey(line: string): string {
  const parts = line.split(';');
  const eq = parts[0]!.indexOf('=');
  const name = (eq < 0 ? parts[0]! : parts[0]!.slice(0, eq)).trim();
  let path = '/';
  let domain = '';
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    const at = part.indexOf('=');
    if (at < 0) continue;
    const attribute = part.slice(0, at).trim().toLowerCase();
    if (attribute === 'path') path = part.slice(at + 1).trim() || '/';
    else if (attribute === 'domain') domain = part.slice(at + 1).trim();
  }
  return `${domain}\n${path}\n${name}`;
}

/** Where Symfony's Cookie::__toString writes `secure`: before `httponly` and `samesite`, else at the end. */
const AFTER_SECURE = /; (?:httponly|samesite=)/;

/** A line serializeCookie wrote without `secure`, with it. */
function withSecure(line: string): string {
  const at = line.search(AFTER_SECURE);
  return at < 0 ? `${line}; secure` : `${line.slice(0, at)}; secure${line.slice(at)}`;
}

/** Names already checked, as given → lower-cased (names are nearly always constants); bounded in count and length. */
const checkedNames = new Map<string, string>();
const CHECKED_NAMES_KEPT = 1024;
/** Longer names (copied from an upstream's response, say) are checked each time. */
const NAME_LENGTH_KEPT = 64;

/** The characters of the header names remembered as checked (tests). */
export function checkedHeaderNameChars(): number {
  let n = 0;
  for (const name of checkedNames.keys()) n += name.length;
  return n;
}

/** The lower-case name, once checked to be a token: one lookup for a name seen before. */
function headerKey(name: string): string {
  const known = checkedNames.get(name);
  if (known !== undefined) return known;
  const key = name.toLowerCase();
  if (!HTTP_TOKEN.test(key)) throw new TypeError(`Invalid header name ${JSON.stringify(name)}.`);
  if (name.length <= NAME_LENGTH_KEPT) remember(checkedNames, CHECKED_NAMES_KEPT, name, key);
  return key;
}

/**
 * What every host accepts in a header value: tab, visible ASCII and Latin-1 (Node's rule, Fetch's
 * ByteString). Returns whether the value has a character beyond ASCII.
 */
function assertHeaderValue(value: string): boolean {
  let beyondAscii = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) continue;
    if (c === 9) continue;
    if (c >= 0x80 && c <= 0xff) {
      beyondAscii = true;
      continue;
    }
    throw new TypeError('Header values may not contain CR, LF, NUL, other control characters or characters above U+00FF.');
  }
  return beyondAscii;
}

/** Response::setStatusCode: an invalid status is the application's error, not a response. */
function assertStatus(status: number): void {
  if (!(Number.isInteger(status) && status >= 100 && status < 600)) throw new RangeError(`The HTTP status code "${status}" is not valid.`);
}

/** What Response::setNotModified removes: headers that must not be sent with a 304. */
const NOT_MODIFIED_DROPPED = ['allow', 'content-encoding', 'content-language', 'content-length', 'content-md5', 'content-type', 'last-modified'];

/** A max-age value: Symfony's setters take an int; a fraction or NaN would be an invalid directive. */
function wholeSeconds(seconds: number): string {
  if (!Number.isInteger(seconds)) throw new TypeError(`The cache age ${String(seconds)} is not a whole number of seconds.`);
  return String(seconds);
}

/**
 * The comparison of Response::isNotModified (also the `cache` option's, HttpCacheListener): the entity
 * tags decide when the request sent any and the response has one — compared weakly, `*` matching any
 * (If-Modified-Since is then ignored, RFC 7232 §3.3); otherwise If-Modified-Since must not be before
 * Last-Modified. The request method is the caller's to check.
 */
export function validatorsMatch(request: KernelRequest, etag: string | null, lastModified: string | null): boolean {
  const tags = etag === null ? [] : request.getETags();
  if (tags.length > 0) {
    const ours = etag!.startsWith('W/') ? etag!.slice(2) : etag;
    for (const tag of tags) {
      // Response::isNotModified strips `W/` before both comparisons: `W/*` matches any entity tag too.
      const strong = tag.startsWith('W/') ? tag.slice(2) : tag;
      if (strong === ours || strong === '*') return true;
    }
    return false;
  }
  const ifModifiedSince = request.headers.get('if-modified-since');
  if (!ifModifiedSince || lastModified === null) return false;
  const since = parseHttpDate(ifModifiedSince);
  return !Number.isNaN(since) && since >= parseHttpDate(lastModified);
}

/**
 * A Fetch Response that is no `instanceof` the global one: from another Fetch implementation (the
 * `undici` package, a polyfill) or another realm. Such a class names itself `Response` through
 * Symbol.toStringTag, as the Fetch standard's does; the status and the headers are what fromFetch reads.
 * Only data a controller returned gets here, after both `instanceof` tests failed.
 */
function isOtherFetchResponse(value: unknown): value is Response {
  if (typeof value !== 'object' || value === null) return false;
  try {
    if (Object.prototype.toString.call(value) !== '[object Response]') return false;
    const { status, headers } = value as { status?: unknown; headers?: { forEach?: unknown } | null };
    return typeof status === 'number' && typeof headers?.forEach === 'function';
  } catch {
    return false;
  }
}

/** A Content-Encoding that every Fetch decodes (undici, Deno, Bun, workerd): gzip or br alone. */
const FETCH_DECODED_CODING = /^[ \t]*(?:gzip|br)[ \t]*$/i;
const IDENTITY_CODING = /^[ \t]*(?:identity[ \t]*)?$/i;

/** Fields about the connection a message came over (RFC 9110 §7.6.1), never passed on by a proxy. */
const HOP_BY_HOP_FIELDS = ['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection'];

/**
 * The header fields of a Response from the network (type basic or cors: a controller's
 * `return fetch(url)`) that describe the upstream's message rather than this one; null for a Response
 * the app built (type default), whose headers are its own and stay.
 * - The upstream connection's fields (and those its Connection names): the Node adapter strips them on
 *   the wire, but a Fetch host (Deno, Bun) sent them on, as `Connection: keep-alive` and
 *   `Keep-Alive: timeout=99` to a client it was closing the connection on.
 * - What `fetch()` decoding made wrong: fetch decodes a compressed body and leaves the headers as
 *   received (whatwg/fetch#1729, undici#2514), so the encoded length and coding went out with the
 *   decoded bytes: the Node adapter cut the body at the compressed length (a 200 silently truncated),
 *   and every host labelled plain bytes as gzip. The length goes with any coding; the coding itself
 *   when it is gzip or br alone, which every fetch decodes (beyond them they differ: undici also decodes
 *   deflate, x-gzip and lists, Deno 2.9 does not, so their Content-Encoding is kept).
 */
function upstreamFraming(response: Response): Set<string> | null {
  const type = response.type;
  if (type !== 'basic' && type !== 'cors') return null;
  const headers = response.headers;
  const dropped = new Set(HOP_BY_HOP_FIELDS);
  const connection = headers.get('connection');
  if (connection !== null) for (const name of connection.split(',')) dropped.add(name.trim().toLowerCase());
  // Bodiless answers too (HEAD, 304): they describe the representation GET sends, decoded here.
  const coding = headers.get('content-encoding');
  if (coding !== null && !IDENTITY_CODING.test(coding)) {
    dropped.add('content-length');
    if (FETCH_DECODED_CODING.test(coding)) dropped.add('content-encoding');
  }
  return dropped;
}

/** Cancels a stream no one will read; a locked one (its reader's to cancel) is left as it is. */
export function cancelQuietly(stream: ReadableStream<Uint8Array>): void {
  try {
    stream.cancel().catch(() => {});
  } catch {
    // a stream implementation that throws instead of rejecting: nothing more to do
  }
}

/** The statuses Response::isRedirect accepts (201 too: Created carries a Location). */
const REDIRECT_STATUSES = new Set([201, 301, 302, 303, 307, 308]);

/** json_encode's refusal of INF and NAN, as JsonResponse reports it (InvalidArgumentException). */
function refuseNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError('Inf and NaN cannot be JSON encoded');
  return value;
}

/**
 * htmlspecialchars with ENT_QUOTES, as RedirectResponse escapes its URL: `'` too, because the meta
 * refresh quotes the URL with it (`url='…'`), where a raw `'` would end the URL early.
 */
function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#039;');
}

/**
 * The kernel's response (Symfony's Response): plain fields that listeners change in place. Hosts turn
 * it into bytes on their own terms — `toFetch()` for Fetch hosts, direct writes in the Node adapter.
 */
/** Headers as the helpers take them: a plain object, or name/value pairs (a Fetch `Headers`, a Map, an array). */
export type ResponseHeadersInit = Record<string, string> | Iterable<[string, string]> | Headers;

export class HttpResponse {
  status: number;
  readonly headers: ResponseHeaders;
  body: ResponseBody;
  /** Set when the body is a stream the kernel must not buffer (StreamedResponse). */
  get isStreamed(): boolean {
    return typeof ReadableStream !== 'undefined' && this.body instanceof ReadableStream;
  }

  constructor(body: ResponseBody = '', status = 200, headers?: ResponseHeadersInit) {
    if (status !== 200) assertStatus(status);
    this.body = body;
    this.status = status;
    this.headers = headers instanceof ResponseHeaders ? headers : new ResponseHeaders(headers);
  }

  static text(body: string, status = 200, headers?: ResponseHeadersInit): HttpResponse {
    const r = new HttpResponse(body, status, headers);
    if (!r.headers.has('content-type')) r.headers.set('content-type', 'text/plain; charset=UTF-8');
    return r;
  }

  static html(body: string, status = 200, headers?: ResponseHeadersInit): HttpResponse {
    const r = new HttpResponse(body, status, headers);
    if (!r.headers.has('content-type')) r.headers.set('content-type', 'text/html; charset=UTF-8');
    return r;
  }

  /**
   * JsonResponse: null/undefined is `{}` (its `$data ??= new \ArrayObject()`); a non-finite number is
   * refused as json_encode refuses it (`Inf and NaN cannot be JSON encoded`) instead of becoming `null`.
   * JSON.stringify writes NaN and ±Infinity as `null`, so only an output containing `null` is encoded
   * again with a replacer that finds them. A replacer on every call cost about 1.7–2× (Node 22, a
   * 5-field object: 1.0–1.4 µs plain, 1.7–2.3 µs with a replacer); the `null` check adds nothing
   * measurable (1.1–1.5 µs).
   */
  static json(data: unknown, status = 200, headers?: ResponseHeadersInit): HttpResponse {
    let body = data === null || data === undefined ? '{}' : JSON.stringify(data) ?? 'null';
    if (body.includes('null')) body = JSON.stringify(data, refuseNonFinite) ?? 'null';
    const r = new HttpResponse(body, status, headers);
    // JsonResponse::update: none, or exactly `text/javascript` (what its JSONP callback had set), is replaced.
    const type = r.headers.get('content-type');
    if (type === null || type === 'text/javascript') r.headers.set('content-type', 'application/json');
    return r;
  }

  /**
   * Symfony's RedirectResponse: the URL is escaped in the body; a 301 carries no Cache-Control. The
   * Location is percent-encoded as UTF-8 where it is not URI text (non-ASCII, space, controls, `"<>\^`{|}`),
   * which is what a browser does with the raw UTF-8 bytes Symfony sends; header values here are Latin-1.
   * An empty URL and a status that is not a redirect (201, 301, 302, 303, 307, 308: Response::isRedirect)
   * throw Symfony's messages.
   */
  static redirect(url: string, status = 302, headers?: ResponseHeadersInit): HttpResponse {
    // The order of RedirectResponse::__construct: the status is validated, then the URL, then the redirect.
    if (status !== 302) assertStatus(status);
    if (url === '') throw new TypeError('Cannot redirect to an empty URL.');
    if (!REDIRECT_STATUSES.has(status)) throw new RangeError(`The HTTP status code is not a redirect ("${status}" given).`);
    const e = escapeHtml(url);
    const body = `<!DOCTYPE html>
<html>
    <head>
        <meta charset="UTF-8" />
        <meta http-equiv="refresh" content="0;url='${e}'" />

        <title>Redirecting to ${e}</title>
    </head>
    <body>
        Redirecting to <a href="${e}">${e}</a>.
    </body>
</html>`;
    const r = new HttpResponse(body, status, headers);
    r.headers.set('location', url.replace(UNSAFE_LOCATION_CHAR, encodeLocationChar));
    r.headers.set('content-type', 'text/html; charset=utf-8');
    // RedirectResponse::__construct removes the default Cache-Control of a 301 (one given stays); any
    // other Response keeps it, so a plain 301, or this one given another status, still gets `no-cache, private`.
    if (status === 301 && !r.headers.has('cache-control')) r.headers.delete('cache-control');
    return r;
  }

  static stream(stream: ReadableStream<Uint8Array>, status = 200, headers?: ResponseHeadersInit): HttpResponse {
    return new HttpResponse(stream, status, headers);
  }

  /**
   * What a controller returns or a listener sets as the response: an HttpResponse as it is, a Fetch
   * Response wrapped (`fromFetch`); null for anything else. The one place both are told apart.
   */
  static from(value: unknown): HttpResponse | null {
    if (value instanceof HttpResponse) return value;
    if (typeof Response !== 'undefined' && value instanceof Response) return HttpResponse.fromFetch(value);
    if (isOtherFetchResponse(value)) return HttpResponse.fromFetch(value);
    return null;
  }

  /** Wraps a Fetch Response returned by a controller; its body stays a stream, nothing is buffered. */
  static fromFetch(response: Response): HttpResponse {
    // Refused here, where the kernel still renders the error: sent later, the adapter could only cut it off.
    if (response.bodyUsed || response.body?.locked === true) {
      throw new TypeError('A Fetch Response whose body was already read or is locked cannot be answered: return a new Response (or read a clone() of the upstream one).');
    }
    const r = new HttpResponse(response.body, response.status);
    const dropped = upstreamFraming(response);
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie' && (dropped === null || !dropped.has(name))) r.headers.append(name, value);
    });
    const cookies = (response.headers as Headers & { getSetCookie?: () => string[] }).getSetCookie?.() ?? [];
    for (const c of cookies) r.headers.append('set-cookie', c);
    return r;
  }

  /**
   * Response::isRedirect: the status alone decides (201, 301, 302, 303, 307, 308, with or without a
   * Location), unless a location is given, which must then be the Location header. So a 300, 304 or
   * 305 is no redirect, and HttpKernel::handleThrowable keeps the status of a 201 or of a 302 without
   * Location that a kernel.exception listener sets, as Symfony does.
   */
  isRedirect(location?: string): boolean {
    return REDIRECT_STATUSES.has(this.status) && (location === undefined || location === this.headers.get('location'));
  }

  /**
   * A status sent without a body: Symfony's 1xx, 204 and 304 (Response::prepare), and 205, which Fetch
   * allows no body either (a null body status). Symfony would send a 205's body; here the ResponseListener
   * drops it, so that `app.fetch` answers the 205 rather than a 500 and every host sends the same.
   */
  isEmptyStatus(): boolean {
    return this.status === 204 || this.status === 304 || this.status === 205 || (this.status >= 100 && this.status < 200);
  }

  /** The body as a string when it is one (or bytes); null for streams. */
  bodyText(): string | null {
    if (typeof this.body === 'string') return this.body;
    if (this.body instanceof Uint8Array) return new TextDecoder().decode(this.body);
    if (this.body === null) return '';
    return null;
  }

  // --- Symfony's Response accessors, for code ported from it (README "Symfony HttpFoundation methods") ---

  /** Response::getStatusCode. */
  getStatusCode(): number {
    return this.status;
  }
  /** Response::setStatusCode (the reason phrase is the host's: HTTP/2 has none). */
  setStatusCode(status: number): this {
    assertStatus(status);
    this.status = status;
    return this;
  }
  /** Response::isInformational: 1xx. */
  isInformational(): boolean {
    return this.status >= 100 && this.status < 200;
  }
  /** Response::isSuccessful: 2xx. */
  isSuccessful(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  /** Response::isOk: exactly 200. */
  isOk(): boolean {
    return this.status === 200;
  }
  /** Response::isForbidden: 403. */
  isForbidden(): boolean {
    return this.status === 403;
  }
  /** Response::isNotFound: 404. */
  isNotFound(): boolean {
    return this.status === 404;
  }
  /** Response::isClientError: 4xx. */
  isClientError(): boolean {
    return this.status >= 400 && this.status < 500;
  }
  /** Response::isServerError: 5xx. */
  isServerError(): boolean {
    return this.status >= 500 && this.status < 600;
  }
  /** Response::isEmpty: 204 or 304 only (isEmptyStatus also counts 1xx and 205, for what the hosts send). */
  isEmpty(): boolean {
    return this.status === 204 || this.status === 304;
  }
  /** Response::getContent: the body as text; false for a stream, as StreamedResponse::getContent. */
  getContent(): string | false {
    return this.bodyText() ?? false;
  }
  /**
   * Response::setContent: null is the empty body. A stream it replaces is cancelled, so that its source
   * (a file, an upstream `fetch`'s connection) stops and lets go: for a StreamedResponse, setContent(null)
   * (what setNotModified calls) means its callback never runs (StreamedResponse::setContent), but a
   * ReadableStream has started already, and one merely dropped stays open until it is collected.
   */
  setContent(content: string | null): this {
    const replaced = this.body;
    this.body = content ?? '';
    if (typeof ReadableStream !== 'undefined' && replaced instanceof ReadableStream) cancelQuietly(replaced);
    return this;
  }

  // --- HTTP cache (Response::setPublic … setNotModified); Cache-Control is rendered as ResponseHeaderBag does ---

  /** Response::setPublic: `public` replaces `private`. */
  setPublic(): this {
    return this.cacheControl((d) => {
      d.delete('private');
      d.set('public', true);
    });
  }
  /** Response::setPrivate: `private` replaces `public`. */
  setPrivate(): this {
    return this.cacheControl((d) => {
      d.delete('public');
      d.set('private', true);
    });
  }
  /** Response::setMaxAge: the `max-age` directive, in seconds (an int there, so whole seconds here). */
  setMaxAge(seconds: number): this {
    const value = wholeSeconds(seconds);
    return this.cacheControl((d) => d.set('max-age', value));
  }
  /** Response::setSharedMaxAge: `s-maxage`, which makes the response public. */
  setSharedMaxAge(seconds: number): this {
    const value = wholeSeconds(seconds);
    this.setPublic();
    return this.cacheControl((d) => d.set('s-maxage', value));
  }
  /** Response::setEtag: quoted unless it starts with `"`, `W/` prefixed when weak; null removes it. */
  setEtag(etag: string | null, weak = false): this {
    if (etag === null) this.headers.delete('etag');
    else this.headers.set('etag', (weak ? 'W/' : '') + (etag.startsWith('"') ? etag : `"${etag}"`));
    return this;
  }
  /** Response::setLastModified: an HTTP date in GMT; null removes it. */
  setLastModified(date: Date | null): this {
    return this.dateHeader('last-modified', date);
  }
  /** Response::setExpires: an HTTP date in GMT; null removes it. */
  setExpires(date: Date | null): this {
    return this.dateHeader('expires', date);
  }
  /** Response::setVary: replaces the Vary header, or adds to it when `replace` is false. */
  setVary(headers: string | string[], replace = true): this {
    const value = Array.isArray(headers) ? headers.join(', ') : headers;
    if (replace) this.headers.set('vary', value);
    else this.headers.append('vary', value);
    return this;
  }
  /**
   * Response::isNotModified: for a GET or HEAD request whose `If-None-Match` matches this response's
   * ETag (weakly), or — without tags to compare — whose `If-Modified-Since` is not before its
   * Last-Modified, the response becomes a 304 (setNotModified) and true is returned.
   */
  isNotModified(request: KernelRequest): boolean {
    if (!request.isMethodCacheable()) return false;
    const notModified = validatorsMatch(request, this.headers.get('etag'), this.headers.get('last-modified'));
    if (notModified) this.setNotModified();
    return notModified;
  }
  /** Response::setNotModified: 304, no body, and none of the headers a 304 must not carry. */
  setNotModified(): this {
    this.setStatusCode(304);
    this.setContent(null);
    for (const name of NOT_MODIFIED_DROPPED) this.headers.delete(name);
    return this;
  }

  /** HeaderBag::addCacheControlDirective and its kin: change the directives, write them back computed. */
  private cacheControl(change: (directives: Map<string, string | true>) => void): this {
    const directives = this.headers.cacheControlDirectives();
    change(directives);
    this.headers.set('cache-control', computedCacheControl(directives, this.headers.has('last-modified') || this.headers.has('expires')));
    return this;
  }

  private dateHeader(name: string, date: Date | null): this {
    if (date === null) {
      this.headers.delete(name);
      return this;
    }
    const value = httpDate(date);
    if (value === null) throw new TypeError(`The ${name === 'expires' ? 'Expires' : 'Last-Modified'} date is not a valid date.`);
    this.headers.set(name, value);
    return this;
  }

  /**
   * A Fetch Response. Headers are set on the Response's own `Headers` rather than passed as `init`:
   * Deno converts an init record through WebIDL at three times the cost of three `set` calls
   * (Node costs the same either way). A string body's default Content-Type is replaced by ours, as
   * an init record would have done.
   */
  toFetch(): Response {
    // `status` is a plain field: Fetch would truncate 200.5 to 200 where the Node adapter answers its 500.
    if (!Number.isInteger(this.status)) assertStatus(this.status);
    const empty = this.isEmptyStatus();
    const body = empty ? null : this.body;
    // A stream no host will read (a listener after the ResponseListener made this a 204 or 304) is
    // cancelled, as the Node adapter does, so that its source (an upstream fetch, a file) stops now.
    if (empty && this.isStreamed) cancelQuietly(this.body as ReadableStream<Uint8Array>);
    const response = new Response(body === '' ? null : (body as BodyInit | null), this.status === 200 ? undefined : { status: this.status });
    this.headers.copyTo(response.headers);
    return response;
  }
}
