/**
 * The response side of the native adapter: the kernel's response written straight to the
 * `ServerResponse` (headers in one `writeHead`, a fixed body in one `end`, a stream copied with
 * backpressure). Apart from the listener, which decides when to write; this decides how.
 */
import type http from 'node:http';
import { Readable } from 'node:stream';
import { types } from 'node:util';
import { cancelQuietly } from '../../http/response.ts';
import { noop, reportRequestError, sendInternalError } from './failures.ts';
import type { IncomingSource } from './incoming-source.ts';
import { settleBeforeClose, type NodeApp, type NodeResponse, type RequestLogger, type ServerState } from './types.ts';

export { cancelQuietly };

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

/** A Content-Length value worth repeating on HEAD: decimal digits only (one value, no list). */
const DECIMAL = /^[0-9]{1,16}$/;

/**
 * Headers about this connection rather than the response (RFC 9110 §7.6.1): the host frames the message
 * and decides keep-alive, so an application's values (often copied from an upstream by
 * `return fetch(url)`) never reach the wire. An application's `Connection: close` is kept as a wish.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection']);

/**
 * Writes the kernel's response. Status and headers go in one `writeHead` (Set-Cookie repeated); a
 * string or byte body goes in one `end` with an exact Content-Length; a stream is copied chunk by chunk
 * with backpressure and cancelled when the client leaves. HEAD, 204 and 304 never carry a body;
 * HEAD carries the Content-Length GET would (its body's length, or, for the body the kernel emptied,
 * the length the kernel declared).
 */
export function writeResponse(app: NodeApp, req: http.IncomingMessage, res: http.ServerResponse, source: IncomingSource, response: NodeResponse, state: ServerState, request?: RequestLogger): void {
  const body = response.body;
  if (res.destroyed) {
    if (isStream(body)) cancelQuietly(body);
    return;
  }
  const status = response.status;
  // A 1xx is no final answer (the client would wait for another one, and a pipelined request's answer
  // would be taken for it), and a status outside 100–599 is no HTTP status: the application's error,
  // answered with the adapter's 500, as Fetch hosts refuse such a Response.
  if (!(status >= 200 && status <= 599 && Number.isInteger(status))) throw new TypeError(`The HTTP status code "${status}" cannot be sent as a final response.`);
  const head = req.method === 'HEAD';
  const noBody = head || status === 204 || status === 304;
  let fixed: string | Uint8Array | null = null;
  let stream: ReadableStream<Uint8Array> | null = null;
  if (typeof body === 'string') fixed = body.length > LARGE_STRING && !noBody ? encodeLarge(body) : body;
  else if (body === null) fixed = '';
  else if (body instanceof Uint8Array) fixed = body;
  else if (isStream(body)) stream = body;
  else throw new TypeError(`Unsupported response body type: ${Object.prototype.toString.call(body)}`);
  // Checked before anything is written: a locked stream (a Fetch Response whose body was already read)
  // can never be sent, and failing now gives the client the 500 instead of a head with no body. So is
  // one read (or cancelled) before, its reader let go: Fetch hosts refuse a disturbed body with the same
  // 500, where writing it sent what was left of it (an empty 200 once read whole).
  if (stream !== null && (stream.locked || Readable.isDisturbed(stream as unknown as NodeJS.ReadableStream))) throw new TypeError('The response body stream is locked or was already read.');

  const headers: string[] = [];
  const lines = response.headers;
  if (lines.appendTo) lines.appendTo(headers);
  else for (const [name, value] of lines.entries()) headers.push(name, value);
  let hasLength = false;
  let streamLength = -1;
  let closeWanted = false;
  /** HEAD: the Content-Length the response declares (the kernel empties the body and keeps GET's length here). */
  let declared: string | undefined;
  // Compacted in place: the lines kept move down over the ones dropped.
  let kept = 0;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    // Compared lower-case: the kernel's names are, but an application of its own (a NodeApp) may write
    // `Content-Length` or `Transfer-Encoding`, which Node would send beside the adapter's own length
    // (two lengths and chunked framing on one response). Fetch hosts lower-case names in `Headers`.
    const key = name.toLowerCase();
    if (key === 'content-length') {
      // Fixed bodies get their exact length below; no length on 204 or on a chunked stream.
      if (fixed !== null || status === 204) {
        if (head) declared = headers[i + 1];
        continue;
      }
      // A stream's declared length is kept only when it is one decimal number, and then enforced;
      // a second line (spelled otherwise) is dropped: one message, one length.
      if (hasLength || !DECIMAL.test(headers[i + 1])) continue;
      hasLength = true;
      streamLength = Number(headers[i + 1]);
    } else if (HOP_BY_HOP.has(key)) {
      if (key === 'connection' && /(?:^|,)[ \t]*close[ \t]*(?:,|$)/i.test(headers[i + 1])) closeWanted = true;
      continue;
    }
    if (kept !== i) {
      headers[kept] = name;
      headers[kept + 1] = headers[i + 1];
    }
    kept += 2;
  }
  headers.length = kept;
  // Node trusts a declared length: a stream that delivered more or fewer bytes would leave the rest to
  // be read as the next response on the connection. pipeStream holds the body to it (as Deno does:
  // cut at the length, or the connection closed when the stream ends short); strict mode is the guard.
  if (hasLength && stream !== null && !noBody) res.strictContentLength = true;
  if (fixed !== null && status !== 204 && status !== 304) {
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
  if (state.closing || closeWanted || upgradeLeftUnread(req)) res.shouldKeepAlive = false;
  else if (!req.complete && (source.bodyState !== 0 || unreadBodyTooLarge(req))) {
    res.shouldKeepAlive = false;
  }

  if (noBody || stream === null) {
    res.writeHead(status, headers);
    if (stream !== null) cancelQuietly(stream);
    if (noBody || fixed === '') res.end();
    // Node sends a short string body in one write with the head, encoding both as UTF-8: a Latin-1
    // header value would then go out as UTF-8 here and as Latin-1 everywhere else.
    else if (typeof fixed === 'string' && lines.beyondAscii === true) res.end(Buffer.from(fixed));
    else res.end(fixed);
    // Bytes the socket could not take at once wait on the client to read them.
    if (res.writableLength > 0) watchStall(res, state);
    return;
  }
  // The head waits with the stream's first chunks for a turn of the event loop (pipeStream): a stream
  // that fails at once gets the adapter's 500 instead of an empty reply or a 200 cut short.
  pipeStream(app, request, res, stream, hasLength ? streamLength : -1, () => res.writeHead(status, headers), state).catch((err: unknown) => {
    reportRequestError(app, request, 'Writing a streamed response failed', err);
    res.destroy();
  });
}

/**
 * A request that asks for an upgrade (`Connection: upgrade` and an `Upgrade` header): Node's parser
 * (llhttp) takes whatever follows it (after its body, if any) in the same read for the new protocol's
 * bytes and, as no `'upgrade'` listener takes them, drops them. A request pipelined behind it would never be answered,
 * and the connection would stay open until the keep-alive timeout (for ever with none): closing it
 * after this answer tells the client at once (RFC 9112 §9.6) that nothing after it was read.
 */
function upgradeLeftUnread(req: http.IncomingMessage): boolean {
  const h = req.headers;
  if (h.upgrade === undefined) return false;
  const connection = h.connection;
  return connection !== undefined && /(?:^|,)[ \t]*upgrade[ \t]*(?:,|$)/i.test(connection);
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

/** Bytes a stream may deliver at once before its head goes out (pipeStream). */
const HOLD_LIMIT = 64 * 1024;

/**
 * Arms serve()'s `sendTimeout` on the connection of an answer left waiting on its client: Node then
 * re-arms it on each byte read or written, and serve()'s 'timeout' listener closes the connection if
 * the client has still left bytes unread when it fires. Only then, not on every connection: an armed
 * socket timer costs each read and write of every request. (After the answer is flushed, Node's own
 * keep-alive wait replaces it.)
 */
function watchStall(res: http.ServerResponse, state: ServerState): void {
  const ms = state.sendTimeout;
  if (ms !== undefined && ms > 0) res.socket?.setTimeout(ms);
}

/**
 * The same for a pipelined answer written while it waited behind another one (no socket then, so
 * writeResponse and pipeStream armed nothing): node:http writes it out when it hands it the socket
 * (after its `'socket'` event, listener.ts onTurn). Whatever the socket could not take then waits on
 * the client. Not checked for an answer that was not written yet: writeResponse sees its socket.
 */
export function watchStallOnTurn(res: http.ServerResponse, state: ServerState): void {
  const ms = state.sendTimeout;
  if (ms !== undefined && ms > 0 && res.writableLength > 0) process.nextTick(armIfUnread, res, ms);
}

/** After node:http's flush of a pipelined answer: its bytes the socket holds still wait on the client. */
function armIfUnread(res: http.ServerResponse, ms: number): void {
  const socket = res.socket;
  if (socket !== null && socket.writableLength > 0) socket.setTimeout(ms);
}

/**
 * Copies the stream to the response; with a declared `length` (≥ 0), exactly that many bytes or a closed
 * connection. The head and the chunks that come at once wait for one turn of the event loop (or
 * HOLD_LIMIT bytes, or the stream's end): a stream that fails at once — an export whose source throws
 * on its first rows — gets the adapter's 500, not a 200 head cut short or, with the chunks Node had
 * not sent yet, an empty reply. An event stream whose first event is not ready gets its head then.
 */
async function pipeStream(app: NodeApp, request: RequestLogger | undefined, res: http.ServerResponse, stream: ReadableStream<Uint8Array>, length: number, writeHead: () => void, state: ServerState): Promise<void> {
  const reader = stream.getReader();
  let left = length;
  let gone = false;
  /** Chunks waiting with the head; null once the head is written. */
  let held: Uint8Array[] | null = [];
  let heldBytes = 0;
  let turned = false;
  const release = (): void => {
    const chunks = held!;
    held = null;
    writeHead();
    for (const chunk of chunks) res.write(chunk);
    // Written regardless of backpressure: what the socket could not take waits on the client.
    if (res.writableLength > 0) watchStall(res, state);
  };
  /** Holds or writes a chunk; false when the response wants the writer to wait for 'drain'. */
  const send = (chunk: Uint8Array): boolean => {
    if (held !== null) {
      if (!turned && heldBytes + chunk.byteLength <= HOLD_LIMIT) {
        held.push(chunk);
        heldBytes += chunk.byteLength;
        return true;
      }
      release();
    }
    return res.write(chunk);
  };
  const onClose = () => {
    if (res.writableFinished) return;
    gone = true;
    const cancelled = reader.cancel(new Error('The client closed the connection.')).catch(noop);
    // Held only while serve() closes (it waits for the cancel() of the streams it cut): held always, a
    // cancel() that never settles kept its stream and answer for the life of the server.
    settleBeforeClose(state, cancelled);
  };
  res.on('close', onClose);
  res.on('error', noop);
  const timer = setImmediate(() => {
    turned = true;
    if (held === null || gone || res.destroyed) return;
    try {
      const empty = held.length === 0;
      release();
      // Nothing to send with it (an event stream's first event is not ready): the head goes alone now.
      if (empty) res.flushHeaders();
    } catch (err) {
      // Outside the awaited chain: a throw here would be uncaught. 'close' then ends the copy.
      reportRequestError(app, request, 'Writing a streamed response failed', err);
      res.destroy();
    }
  });
  try {
    for (;;) {
      const result = await reader.read();
      if (result.done || gone) break;
      const chunk = result.value;
      // Fetch hosts (undici, Deno) fail the body on a chunk that is no Uint8Array; Node wrote a string
      // as UTF-8, and refused the others only once the head was written (an empty reply, not the 500).
      if (!types.isUint8Array(chunk)) throw new TypeError('Received non-Uint8Array chunk');
      if (left >= 0) {
        if (chunk.byteLength >= left) {
          // The declared length is reached: the rest of the stream is not part of this response.
          if (left > 0) send(chunk.subarray(0, left));
          left = 0;
          reader.cancel().catch(noop);
          break;
        }
        left -= chunk.byteLength;
      }
      if (!send(chunk)) {
        watchStall(res, state);
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
    if (gone) return;
    if (held !== null) release();
    if (left > 0) {
      // Shorter than declared: the client would wait for bytes that never come, then misread the next response.
      reportRequestError(app, request, 'The response body stream ended before its declared Content-Length', new Error(`${left} of ${length} bytes missing`));
      // What was written still goes out, then the connection ends: the client sees the body cut short.
      if (res.socket) res.socket.end();
      else res.destroy();
      return;
    }
    res.end();
    if (res.writableLength > 0) watchStall(res, state);
  } catch (err) {
    if (!gone) {
      reportRequestError(app, request, 'The response body stream failed', err);
      reader.cancel(err).catch(noop);
      // Head still held: the adapter's plain 500, as for any application error. Once written, bytes may
      // be on the wire: sendInternalError ends the connection without the final chunk, so the client
      // sees the truncation (PHP too has sent its head before a StreamedResponse callback fails).
      sendInternalError(res);
    }
  } finally {
    clearImmediate(timer);
    res.off('close', onClose);
  }
}
