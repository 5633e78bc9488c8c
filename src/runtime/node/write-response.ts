/**
 * The response side of the native adapter: the kernel's response written straight to the
 * `ServerResponse` (headers in one `writeHead`, a fixed body in one `end`, a stream copied with
 * backpressure). Apart from the listener, which decides when to write; this decides how.
 */
import type http from 'node:http';
import { noop, reportError } from './failures.ts';
import type { IncomingSource } from './incoming-source.ts';
import type { NodeApp, NodeResponse, ServerState } from './types.ts';

/** Unread request bodies up to this size are drained so the connection can be kept alive; larger ones close it. */
const DRAIN_LIMIT = 64 * 1024;

export function isStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof body === 'object' && body !== null && typeof (body as ReadableStream).getReader === 'function';
}

/**
 * A string body longer than this is encoded once into a Buffer: Node would otherwise walk it twice,
 * to count its bytes for Content-Length and to encode it for the socket. (HEAD only counts.)
 */
const LARGE_STRING = 8192;

const utf8Encoder = new TextEncoder();

/**
 * UTF-8 bytes of a long string body, in one pass. An all-ASCII string is as many bytes as characters:
 * `encodeInto` a buffer of that size reads it whole. Otherwise the rest (at most 3 bytes per UTF-16
 * unit) goes into a larger buffer after the bytes already written. Why not `Buffer.from`: on Node 20 it
 * walks a string built by concatenation (the debug page, a rendered template) piece by piece, once to
 * count and once to encode. For a 53 KB page in 40 pieces: 10 against 30 µs when it is ASCII, 14–51
 * against 25–115 µs when it is not; over HTTP, 299 → 290 µs of server CPU per debug 404.
 */
function encodeLarge(text: string): Buffer {
  const bytes = Buffer.allocUnsafe(text.length);
  const head = utf8Encoder.encodeInto(text, bytes);
  if (head.read === text.length) return bytes;
  const all = Buffer.allocUnsafe(head.written + (text.length - head.read) * 3);
  bytes.copy(all, 0, 0, head.written);
  const rest = utf8Encoder.encodeInto(text.slice(head.read), all.subarray(head.written));
  return all.subarray(0, head.written + rest.written);
}

export function cancelQuietly(stream: ReadableStream<Uint8Array>): void {
  try {
    stream.cancel().catch(noop);
  } catch {
    // a locked stream: nothing to cancel from here
  }
}

/** A Content-Length value worth repeating on HEAD: decimal digits only (one value, no list). */
const DECIMAL = /^[0-9]{1,16}$/;

/**
 * Writes the kernel's response. Status and headers go in one `writeHead` (Set-Cookie repeated); a
 * string or byte body goes in one `end` with an exact Content-Length; a stream is copied chunk by chunk
 * with backpressure and cancelled when the client leaves. HEAD, 1xx, 204 and 304 never carry a body;
 * HEAD carries the Content-Length GET would (its body's length, or, for the body the kernel emptied,
 * the length the kernel declared).
 */
export function writeResponse(app: NodeApp, req: http.IncomingMessage, res: http.ServerResponse, source: IncomingSource, response: NodeResponse, state: ServerState): void {
  const body = response.body;
  if (res.destroyed) {
    if (isStream(body)) cancelQuietly(body);
    return;
  }
  const status = response.status;
  const head = req.method === 'HEAD';
  const noBody = head || status === 204 || status === 304 || (status >= 100 && status < 200);
  let fixed: string | Uint8Array | null = null;
  let stream: ReadableStream<Uint8Array> | null = null;
  if (typeof body === 'string') fixed = body.length > LARGE_STRING && !noBody ? encodeLarge(body) : body;
  else if (body === null) fixed = '';
  else if (body instanceof Uint8Array) fixed = body;
  else if (isStream(body)) stream = body;
  else throw new TypeError(`Unsupported response body type: ${Object.prototype.toString.call(body)}`);

  const headers: string[] = [];
  const lines = response.headers;
  if (lines.appendTo) lines.appendTo(headers);
  else for (const [name, value] of lines.entries()) headers.push(name, value);
  let hasLength = false;
  let hasEncoding = false;
  /** HEAD: the Content-Length the response declares (the kernel empties the body and keeps GET's length here). */
  let declared: string | undefined;
  // Compacted in place: the lines kept move down over the ones dropped.
  let kept = 0;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    if (name === 'content-length') {
      // Fixed bodies get their exact length below; no length on 204 or on a chunked stream.
      if (fixed !== null || status === 204 || (status >= 100 && status < 200)) {
        if (head) declared = headers[i + 1];
        continue;
      }
      hasLength = true;
    } else if (name === 'transfer-encoding') {
      if (fixed !== null || noBody) continue;
      hasEncoding = true;
    }
    if (kept !== i) {
      headers[kept] = name;
      headers[kept + 1] = headers[i + 1];
    }
    kept += 2;
  }
  headers.length = kept;
  if (hasLength && hasEncoding) {
    for (let i = 0; i < headers.length; i += 2) {
      if (headers[i] === 'content-length') {
        headers.splice(i, 2);
        break;
      }
    }
  }
  if (fixed !== null && status !== 204 && status !== 304 && !(status >= 100 && status < 200)) {
    const length = typeof fixed === 'string' ? Buffer.byteLength(fixed) : fixed.byteLength;
    if (head && length === 0) {
      // The kernel's HEAD body is empty (ResponseListener): GET's length is the declared one; none
      // declared (a stream's HEAD) → none sent, as GET's chunked answer has none.
      if (declared !== undefined && DECIMAL.test(declared)) headers.push('content-length', declared);
    } else {
      headers.push('content-length', String(length));
    }
  }

  // A request body left unread: small ones are drained by Node (keep-alive kept); a cancelled or
  // large one closes the connection after the response, so no unread byte is parsed as a request.
  if (state.closing) res.shouldKeepAlive = false;
  else if (!req.complete && (source.bodyState !== 0 || unreadBodyTooLarge(req))) {
    res.shouldKeepAlive = false;
  }

  res.writeHead(status, headers);
  if (noBody || stream === null) {
    if (stream !== null) cancelQuietly(stream);
    if (noBody || fixed === '') res.end();
    else res.end(fixed);
    return;
  }
  pipeStream(app, res, stream).catch((err: unknown) => reportError(app, 'Writing a streamed response failed', err));
}

/**
 * Whether the unread body of a request still arriving is too large (or of unknown length) to drain.
 * A request without Content-Length and Transfer-Encoding has no body (it is written before Node has
 * marked such a request complete, when the app answered synchronously).
 */
function unreadBodyTooLarge(req: http.IncomingMessage): boolean {
  const h = req.headers;
  if (h['transfer-encoding'] !== undefined) return true;
  const length = h['content-length'];
  return length !== undefined && !(Number(length) <= DRAIN_LIMIT);
}

async function pipeStream(app: NodeApp, res: http.ServerResponse, stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader();
  let gone = false;
  const onClose = () => {
    if (res.writableFinished) return;
    gone = true;
    reader.cancel(new Error('The client closed the connection.')).catch(noop);
  };
  res.on('close', onClose);
  res.on('error', noop);
  try {
    // Headers go with the first chunk; if it is not ready at once (event streams), send them now.
    let first = true;
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      if (first) {
        first = false;
        let settled = false;
        const pending = reader.read().then((r) => ((settled = true), r));
        const timer = setImmediate(() => {
          if (!settled && !gone && !res.destroyed) res.flushHeaders();
        });
        result = await pending;
        clearImmediate(timer);
      } else {
        result = await reader.read();
      }
      if (result.done || gone) break;
      if (!res.write(result.value)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
        if (gone) break;
      }
    }
    if (!gone) res.end();
  } catch (err) {
    if (!gone) {
      // Bytes may be on the wire already: end the connection without the final chunk so the client sees the truncation.
      reportError(app, 'The response body stream failed', err);
      res.destroy();
      reader.cancel(err).catch(noop);
    }
  } finally {
    res.off('close', onClose);
  }
}
