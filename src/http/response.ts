import { HTTP_TOKEN, serializeCookie, type CookieOptions } from './cookies.ts';

export type ResponseBody = string | Uint8Array | ReadableStream<Uint8Array> | null;

/** Response headers: case-insensitive names (kept lower-case), `set-cookie` may repeat. */
export class ResponseHeaders {
  private readonly map = new Map<string, string>();
  private cookies: string[] | null = null;
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
    if (key === 'set-cookie') this.cookies = [value];
    else this.map.set(key, value);
  }
  append(name: string, value: string): void {
    const key = headerKey(name);
    if (assertHeaderValue(value)) this.beyondAscii = true;
    if (key === 'set-cookie') (this.cookies ??= []).push(value);
    else {
      const prev = this.map.get(key);
      this.map.set(key, prev === undefined ? value : `${prev}, ${value}`);
    }
  }
  delete(name: string): void {
    const key = name.toLowerCase();
    if (key === 'set-cookie') this.cookies = null;
    else this.map.delete(key);
  }
  /** All `Set-Cookie` lines. */
  getSetCookies(): string[] {
    return this.cookies ? [...this.cookies] : [];
  }
  setCookie(name: string, value: string, options?: CookieOptions): void {
    const line = serializeCookie(name, value, options);
    const prefix = `${name}=`;
    this.cookies = (this.cookies ?? []).filter((c) => !c.startsWith(prefix));
    this.cookies.push(line);
  }
  clearCookie(name: string, options?: CookieOptions): void {
    this.setCookie(name, '', options);
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

/** Names already checked, as given → lower-cased (names are nearly always constants); bounded. */
const checkedNames = new Map<string, string>();

/** The lower-case name, once checked to be a token: one lookup for a name seen before. */
function headerKey(name: string): string {
  const known = checkedNames.get(name);
  if (known !== undefined) return known;
  const key = name.toLowerCase();
  if (!HTTP_TOKEN.test(key)) throw new TypeError(`Invalid header name ${JSON.stringify(name)}.`);
  if (checkedNames.size < 1024) checkedNames.set(name, key);
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
export class HttpResponse {
  status: number;
  readonly headers: ResponseHeaders;
  body: ResponseBody;
  /** Set when the body is a stream the kernel must not buffer (StreamedResponse). */
  get isStreamed(): boolean {
    return typeof ReadableStream !== 'undefined' && this.body instanceof ReadableStream;
  }

  constructor(body: ResponseBody = '', status = 200, headers?: Record<string, string> | Iterable<[string, string]>) {
    // Symfony's Response::setStatusCode: an invalid status is the application's error, not a response.
    if (status !== 200 && !(Number.isInteger(status) && status >= 100 && status < 600)) throw new RangeError(`The HTTP status code "${status}" is not valid.`);
    this.body = body;
    this.status = status;
    this.headers = headers instanceof ResponseHeaders ? headers : new ResponseHeaders(headers);
  }

  static text(body: string, status = 200, headers?: Record<string, string>): HttpResponse {
    const r = new HttpResponse(body, status, headers);
    if (!r.headers.has('content-type')) r.headers.set('content-type', 'text/plain; charset=UTF-8');
    return r;
  }

  static html(body: string, status = 200, headers?: Record<string, string>): HttpResponse {
    const r = new HttpResponse(body, status, headers);
    if (!r.headers.has('content-type')) r.headers.set('content-type', 'text/html; charset=UTF-8');
    return r;
  }

  static json(data: unknown, status = 200, headers?: Record<string, string>): HttpResponse {
    const r = new HttpResponse(JSON.stringify(data) ?? 'null', status, headers);
    if (!r.headers.has('content-type')) r.headers.set('content-type', 'application/json');
    return r;
  }

  /** Symfony's RedirectResponse: the URL is escaped in the body; a 301 carries no Cache-Control. */
  static redirect(url: string, status = 302, headers?: Record<string, string>): HttpResponse {
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
    r.headers.set('location', url);
    r.headers.set('content-type', 'text/html; charset=utf-8');
    return r;
  }

  static stream(stream: ReadableStream<Uint8Array>, status = 200, headers?: Record<string, string>): HttpResponse {
    return new HttpResponse(stream, status, headers);
  }

  /**
   * What a controller returns or a listener sets as the response: an HttpResponse as it is, a Fetch
   * Response wrapped (`fromFetch`); null for anything else. The one place both are told apart.
   */
  static from(value: unknown): HttpResponse | null {
    if (value instanceof HttpResponse) return value;
    if (typeof Response !== 'undefined' && value instanceof Response) return HttpResponse.fromFetch(value);
    return null;
  }

  /** Wraps a Fetch Response returned by a controller; its body stays a stream, nothing is buffered. */
  static fromFetch(response: Response): HttpResponse {
    const r = new HttpResponse(response.body, response.status);
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') r.headers.append(name, value);
    });
    const cookies = (response.headers as Headers & { getSetCookie?: () => string[] }).getSetCookie?.() ?? [];
    for (const c of cookies) r.headers.append('set-cookie', c);
    return r;
  }

  isRedirect(): boolean {
    return this.status >= 300 && this.status < 400 && this.headers.has('location');
  }

  isEmptyStatus(): boolean {
    return this.status === 204 || this.status === 304 || (this.status >= 100 && this.status < 200);
  }

  /** The body as a string when it is one (or bytes); null for streams. */
  bodyText(): string | null {
    if (typeof this.body === 'string') return this.body;
    if (this.body instanceof Uint8Array) return new TextDecoder().decode(this.body);
    if (this.body === null) return '';
    return null;
  }

  /**
   * A Fetch Response. Headers are set on the Response's own `Headers` rather than passed as `init`:
   * Deno converts an init record through WebIDL at three times the cost of three `set` calls
   * (Node costs the same either way). A string body's default Content-Type is replaced by ours, as
   * an init record would have done.
   */
  toFetch(): Response {
    const body = this.isEmptyStatus() ? null : this.body;
    const response = new Response(body === '' ? null : (body as BodyInit | null), this.status === 200 ? undefined : { status: this.status });
    this.headers.copyTo(response.headers);
    return response;
  }
}
