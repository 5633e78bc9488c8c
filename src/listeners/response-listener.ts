import type { ResponseEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';
import { cancelQuietly, type ResponseHeaders } from '../http/response.ts';
import { remember } from '../http/remember.ts';

/** MIME types for the `_format` request attribute (Symfony's Request::$formats, first entries). */
const FORMAT_MIME: Record<string, string> = Object.assign(Object.create(null), {
  html: 'text/html',
  txt: 'text/plain',
  js: 'application/javascript',
  css: 'text/css',
  json: 'application/json',
  jsonld: 'application/ld+json',
  xml: 'text/xml',
  rdf: 'application/rdf+xml',
  atom: 'application/atom+xml',
  rss: 'application/rss+xml',
  form: 'application/x-www-form-urlencoded',
});

/** Request attribute: the response was a stream whose body HEAD dropped. */
export const STREAMED_ATTRIBUTE = '_streamed_response';

const TEXT_TYPE = /^\s*text\//i;
const CHARSET = /;\s*charset=/i;
const CHECKED_TYPES_KEPT = 64;
/** Longer types (an upload's client-declared type sent back) are checked each time: the map stays small in bytes too. */
const TYPE_LENGTH_KEPT = 256;

/**
 * Symfony's ResponseListener + Response::prepare, for the main request:
 * - content type: from `_format`, else `text/html; charset=UTF-8`; `text/*` without a charset gets
 *   `; charset=UTF-8`;
 * - Cache-Control: responses without one get Symfony's computed default (`no-cache, private`, or
 *   `private, must-revalidate` with Last-Modified/Expires); one without public/private/s-maxage gets
 *   `private`; directives set by the app are rendered sorted; a Cache-Control deleted stays so (Symfony's
 *   RedirectResponse deletes it from a 301); an HTTP/1.0 client of a `no-cache` answer also
 *   gets `Pragma: no-cache` and `Expires: -1`;
 * - 1xx/204/304: no body, no Content-Type/Content-Length; HEAD: empty body, GET's headers kept (a
 *   stream body is cancelled, not read); a POST overridden to HEAD: empty body;
 * - an attachment sent over HTTPS to MSIE < 9 loses its Cache-Control (ensureIEOverSSLCompatibility);
 * - Transfer-Encoding removes Content-Length; on an HTTPS request, cookies set without a `secure`
 *   option are marked `secure` (Cookie::setSecureDefault: `secure: false`, a cleared cookie and a
 *   line set raw stay as they are);
 *   `Vary: Accept-Language` when the locale came from that header.
 */
export class ResponseListener {
  /** Content-Type → whether it is `text/*` without a charset: an app sends a few types, checked once each (bounded). */
  private readonly lacksCharsetByType = new Map<string, boolean>();

  constructor(private readonly charset = 'UTF-8') {}

  private lacksCharset(type: string): boolean {
    let lacks = this.lacksCharsetByType.get(type);
    if (lacks === undefined) {
      lacks = TEXT_TYPE.test(type) && !CHARSET.test(type);
      if (type.length <= TYPE_LENGTH_KEPT) remember(this.lacksCharsetByType, CHECKED_TYPES_KEPT, type, lacks);
    }
    return lacks;
  }

  readonly onKernelResponse = listener<'kernel.response'>('ResponseListener::onKernelResponse', 'response preparation', (event: ResponseEvent) => {
    const request = event.request;
    if (!request.isMainRequest) return;
    const response = event.response;
    const headers = response.headers;

    if (request.attributes.get('_vary_by_language') === true) headers.append('vary', 'Accept-Language');

    if (response.isEmptyStatus()) {
      dropBody(response);
      headers.delete('content-type');
      headers.delete('content-length');
    } else {
      const type = headers.get('content-type');
      if (type === null) {
        const format = request.attributes.get('_format');
        const mime = typeof format === 'string' ? FORMAT_MIME[format] : undefined;
        headers.set('content-type', mime === undefined || mime === 'text/html' ? `text/html; charset=${this.charset}` : mime.startsWith('text/') ? `${mime}; charset=${this.charset}` : mime);
      } else if (this.lacksCharset(type)) {
        headers.set('content-type', `${type}; charset=${this.charset}`);
      }
      if (headers.has('transfer-encoding')) headers.delete('content-length');
      // Once per response: the kernel runs this listener again on an error response that a later
      // kernel.response listener failed on, whose body it may have emptied (its length is GET's already).
      if (request.realMethod === 'HEAD' && !headBodies.has(response)) {
        // GET's Content-Length stays visible for a fixed body (Symfony keeps the header, not the body):
        // the body's own length, which is what the hosts send for GET whatever the app declared (null: 0).
        // A stream keeps only what the app declared, as on GET.
        if (!headers.has('transfer-encoding')) {
          const length = byteLength(response.body);
          if (length !== null) headers.set('content-length', String(length));
        }
        // StreamedResponseListener still treats it as the streamed response GET would get.
        if (response.isStreamed) request.attributes.set(STREAMED_ATTRIBUTE, true);
        else if (typeof response.body === 'string' || response.body instanceof Uint8Array) headBodies.set(response, response.body);
        // A locked stream (a Fetch Response whose body was read) stays: every host refuses it with the
        // 500 it gives GET, where an empty stream in its place answered HEAD with a 200 (CONTRACT §9).
        if (!isLockedStream(response.body)) dropBody(response);
      } else if (request.method === 'HEAD' && request.realMethod !== 'HEAD' && !isLockedStream(response.body)) {
        // Response::prepare asks isMethod('HEAD'), the overridden method: a POST sent with `_method=HEAD`
        // (or X-HTTP-Method-Override) gets no body either. Its client expects one, so no GET length is
        // kept for it: the hosts send the empty body's, 0.
        dropBody(response);
        headers.delete('content-length');
      }
    }

    // ResponseHeaderBag keeps the directives an app sets and renders them sorted (`public, max-age=60`
    // is sent as `max-age=60, public`); without any (no header, or `''`) it computes the default. A
    // header deleted stays so (RedirectResponse removes it from a 301).
    // The cache option and the session, later, start from no directive when this is the default
    // (ResponseHeaders.cacheControlDirectives).
    headers.writeCacheControl(headers.cacheControlDirectives());

    if (request.source.protocol === 'HTTP/1.0') addHttp10CacheHeaders(headers);

    if (isOldIeDownloadOverSsl(headers, request)) headers.delete('cache-control');

    // Response::prepare: Cookie::setSecureDefault(true), for the cookies set without a `secure` option only.
    if (headers.has('set-cookie') && request.isSecure()) headers.setSecureDefault();
  });
}

/**
 * Response::prepare for an HTTP/1.0 client, which may not know Cache-Control: `no-cache` is repeated as
 * `Pragma: no-cache` and `Expires: -1`. Setting Expires makes the headers recompute a computed default
 * (no directive set by the app) as `private, must-revalidate`, as ResponseHeaderBag::set does.
 */
function addHttp10CacheHeaders(headers: ResponseHeaders): void {
  const cacheControl = headers.get('cache-control');
  if (cacheControl === null || !cacheControl.includes('no-cache')) return;
  headers.set('pragma', 'no-cache');
  headers.set('expires', '-1');
}

const ATTACHMENT = /attachment/i;
const MSIE = /MSIE /i;
/** The start of a string PHP's `(int)` cast reads as a number (leading-numeric strings). */
const PHP_LEADING_NUMBER = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;

/**
 * Response::ensureIEOverSSLCompatibility (called by prepare): an attachment sent over HTTPS to Internet
 * Explorer before 9 goes without Cache-Control, which those browsers refuse to save a download with
 * (https://support.microsoft.com/kb/323308). The version is read as Symfony reads it:
 * `(int) preg_replace('/(MSIE )(.*?);/', '$2', $match[0])`, whose pattern is case-sensitive where the
 * match was not, so `msie 10.0;` reads as 0.
 */
function isOldIeDownloadOverSsl(headers: ResponseHeaders, request: ResponseEvent['request']): boolean {
  const disposition = headers.get('content-disposition');
  if (disposition === null || !ATTACHMENT.test(disposition)) return false;
  // preg_match('/MSIE (.*?);/i'): the first `MSIE ` up to the next `;` (if no `;` follows the first, none
  // follows a later one). Found with two linear scans: the pattern itself backtracks from every `MSIE `
  // of a hostile User-Agent to its end.
  const agent = request.headers.get('user-agent') ?? '';
  const start = agent.search(MSIE);
  const end = start < 0 ? -1 : agent.indexOf(';', start + 5);
  if (end < 0 || !request.isSecure()) return false;
  const match = agent.slice(start, end + 1);
  const number = PHP_LEADING_NUMBER.exec(match.startsWith('MSIE ') ? match.slice(5, -1) : match);
  // PHP casts an infinite float (`1e999`) to 0.
  const version = number === null ? 0 : Math.trunc(Number(number[0]));
  return !Number.isFinite(version) || version < 9;
}

const encoder = new TextEncoder();

/** The fixed body a HEAD response had before it was emptied. */
const headBodies = new WeakMap<object, string | Uint8Array>();

/**
 * The body GET would have sent for a HEAD response whose body this listener emptied, for the later
 * response listeners that change GET's body (the debug toolbar) and must keep HEAD's headers GET's.
 */
export function bodyBeforeHead(response: object): string | Uint8Array | undefined {
  return headBodies.get(response);
}

/** The bytes a fixed body is sent as (null: none, 0); null for a stream. */
function byteLength(body: unknown): number | null {
  if (typeof body === 'string') return encoder.encode(body).byteLength;
  if (body instanceof Uint8Array) return body.byteLength;
  if (body === null) return 0;
  return null;
}

/** A stream no one but its reader can read: the hosts cannot send it. */
function isLockedStream(body: unknown): boolean {
  return body !== null && typeof body === 'object' && (body as { locked?: unknown }).locked === true;
}

/**
 * HEAD's body once every listener ran, for the Fetch hosts: one a kernel.response listener set after the
 * ResponseListener emptied it would reach `app.fetch`'s caller (the Node adapter sends none), its stream
 * never cancelled. A locked stream stays, for the 500 it gives GET too.
 */
export function dropLateHeadBody(response: { body: unknown }): void {
  const body = response.body;
  if (body === '' || body === null || isLockedStream(body) || emptiedStreams.has(body as object)) return;
  dropBody(response);
}

/** The empty streams dropBody put in place: a HEAD answer the ResponseListener emptied is not emptied again. */
const emptiedStreams = new WeakSet<object>();

/** Empties the body; a stream is cancelled so its source stops producing. */
function dropBody(response: { body: unknown }): void {
  const body = response.body;
  if (body !== null && typeof body === 'object' && typeof (body as ReadableStream).cancel === 'function') {
    cancelQuietly(body as ReadableStream<Uint8Array>);
    // Still a stream, an empty one: a Fetch host measures a string body (Deno would declare
    // `Content-Length: 0` for HEAD where GET is chunked), but not a stream.
    const empty = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    emptiedStreams.add(empty);
    response.body = empty;
    return;
  }
  response.body = '';
}
