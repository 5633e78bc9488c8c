/**
 * The Node host: `serve(app)` runs an application on `node:http`.
 *
 * Two adapters:
 * - `native` (default, the faster one — docs/node-adapter.md): the request is read straight from the
 *   `IncomingMessage` through a lazy `RequestSource` (nothing parsed or copied until the kernel asks,
 *   no Fetch `Request`), and the kernel's `HttpResponse` is written straight to the `ServerResponse`
 *   (no Fetch `Response`). The request target is `req.url` exactly as received: `//evil.com/x` stays a
 *   path and is never resolved against a base. Under load, the responses of one event-loop turn are
 *   computed together after every ready socket has been read (node-batch.ts; `batch: false` opts out).
 * - `hono`: `@hono/node-server`'s `getRequestListener(app.fetch)`, kept for comparison. It is loaded
 *   on demand (it is a dev dependency) and, by that package's default, replaces the global
 *   `Request`/`Response` with its lightweight classes.
 *
 * Robustness (CONTRACT §10): every failure ends in a response or a closed socket, never in a crash or
 * an unhandled rejection; parse errors get 400/408/431 (405 with `Allow` for a method Node's parser
 * refuses: lower-case or unknown) and a close; header, request and keep-alive
 * timeouts are configurable; `close()` (and SIGTERM/SIGINT) drains in-flight requests within a deadline.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { RequestSource, ConnectionInfo } from '../http/source.ts';
import type { ResponseBody } from '../http/response.ts';
import { DEFAULT_METHODS } from '../http/methods.ts';
import { batchUnderLoad } from './node-batch.ts';

export { batchUnderLoad, type BatchingListener } from './node-batch.ts';

/** What the adapter needs from a kernel response (the kernel's `HttpResponse` fits). */
export interface NodeResponse {
  status: number;
  body: ResponseBody;
  readonly headers: {
    entries(): Iterable<[string, string]>;
    /** Optional fast path: every line appended as name, value, … (the kernel's ResponseHeaders has it). */
    appendTo?(out: string[]): void;
  };
}

/** What the adapters need from an application (the `App` of `createApp()` fits). */
export interface NodeApp {
  /**
   * Fast entry: the response for a `RequestSource` (at once when the app computed it synchronously);
   * `terminate` runs once the response is written.
   */
  handle(source: RequestSource): Handled | Promise<Handled>;
  /** Fetch entry, used by the `hono` adapter only. */
  fetch?(request: Request, info?: ConnectionInfo): Response | Promise<Response>;
  /** Settings `serve()` falls back to when an option is not given. */
  readonly config?: {
    host?: string;
    port?: number;
    headersTimeoutMs?: number;
    requestTimeoutMs?: number;
    keepAliveTimeoutMs?: number;
    shutdownDeadlineMs?: number;
  };
  /** The application's log (errors the adapter catches go there; stderr without it). */
  log?(level: 'info' | 'warning' | 'error', message: string): void;
}

/** A computed response and the kernel.terminate to run after writing it (null: none to run). */
export interface Handled {
  response: NodeResponse;
  terminate: (() => void) | null;
}

export type NodeAdapter = 'native' | 'hono';

export interface ServeOptions {
  /** Default: `app.config.port`, else 8000. 0 picks a free port (reported by the handle). */
  port?: number;
  /** Default: `app.config.host`, else 127.0.0.1. */
  hostname?: string;
  /** Time allowed to receive the request headers, ms (408 and close). Default: `app.config.headersTimeoutMs`, else 60 000. */
  headersTimeout?: number;
  /** Time allowed to receive the whole request, ms (408 and close). Default: `app.config.requestTimeoutMs`, else 300 000. */
  requestTimeout?: number;
  /** Idle keep-alive connections are closed after this many ms. Default: `app.config.keepAliveTimeoutMs`, else 5 000. */
  keepAliveTimeout?: number;
  /** How often Node checks the two request timeouts, ms. Default: a quarter of the shorter timeout, 100–5 000. */
  connectionsCheckingInterval?: number;
  /** In-flight requests get this long to finish on `close()`, then their sockets are destroyed. Default: `app.config.shutdownDeadlineMs`, else 10 000. */
  shutdownDeadlineMs?: number;
  /** On SIGTERM/SIGINT: stop accepting, drain, `process.exit(0)`. Default true. */
  handleSignals?: boolean;
  /** Default `native` (measured faster, docs/node-adapter.md). */
  adapter?: NodeAdapter;
  /**
   * Native adapter: under load, compute the responses of one event-loop turn together (node-batch.ts).
   * Default true; false answers every request inside its socket's read callback.
   */
  batch?: boolean;
}

export interface NodeServer {
  readonly server: http.Server;
  /** The port actually bound (the real one when 0 was asked). */
  readonly port: number;
  readonly hostname: string;
  readonly adapter: NodeAdapter;
  /**
   * Stops accepting, closes idle and not-yet-active connections at once, lets in-flight requests finish
   * (their connections close after the response), destroys what is left after the deadline, and resolves
   * when every connection is gone. Idempotent.
   */
  close(deadlineMs?: number): Promise<void>;
}

type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** Set on requests with `Expect: 100-continue` until the `100 Continue` has been written. */
const AWAITING_CONTINUE = Symbol('awaitingContinue');
type ContinuableRequest = http.IncomingMessage & { [AWAITING_CONTINUE]?: http.ServerResponse };

const NODE_DEFAULTS = { headersTimeout: 60_000, requestTimeout: 300_000, keepAliveTimeout: 5_000, shutdownDeadlineMs: 10_000 };

/** Unread request bodies up to this size are drained so the connection can be kept alive; larger ones close it. */
const DRAIN_LIMIT = 64 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// Request: a lazy RequestSource over an IncomingMessage

/**
 * The kernel's view of an `IncomingMessage`. Constructed per request with plain fields; header values
 * are read on demand from `req.headers` (built lazily by Node, duplicates joined as the Fetch `Headers`
 * would: `, `, `; ` for `cookie` — the server runs with `joinDuplicateHeaders`).
 */
class IncomingSource implements RequestSource {
  readonly method: string;
  readonly target: string;
  readonly scheme: 'http' | 'https';
  readonly remoteAddress: string;
  readonly protocol: string;
  /** 0 = body not asked for, 1 = stream handed out, 2 = stream cancelled by its reader. */
  bodyState = 0;
  private readonly req: http.IncomingMessage;

  constructor(req: http.IncomingMessage) {
    this.req = req;
    this.method = req.method ?? 'GET';
    this.target = req.url ?? '/';
    const socket = req.socket as Socket & { encrypted?: boolean };
    this.scheme = socket.encrypted ? 'https' : 'http';
    this.remoteAddress = socket.remoteAddress ?? '';
    this.protocol = 'HTTP/' + req.httpVersion;
  }

  /** The connection's local address and port (Symfony's SERVER_ADDR, SERVER_PORT), asked only without a Host. */
  get fallbackHost(): string {
    const socket = this.req.socket;
    const address = socket.localAddress;
    if (!address) return '';
    const host = address.startsWith('::ffff:') ? address.slice(7) : address.includes(':') ? `[${address}]` : address;
    return socket.localPort ? `${host}:${socket.localPort}` : host;
  }

  header(name: string): string | null {
    const v = this.req.headers[name];
    if (typeof v === 'string') return v;
    return Array.isArray(v) ? v.join(', ') : null;
  }

  *headers(): Iterable<[string, string]> {
    const lines = this.headerLines();
    for (let i = 0; i < lines.length; i += 2) yield [lines[i]!, lines[i + 1]!];
  }

  headerLines(): string[] {
    const all = this.req.headers;
    const out: string[] = [];
    for (const name in all) {
      if (!Object.prototype.hasOwnProperty.call(all, name)) continue;
      const v = all[name];
      if (typeof v === 'string') out.push(name, v);
      else if (Array.isArray(v)) out.push(name, v.join(', '));
    }
    return out;
  }

  body(): ReadableStream<Uint8Array> | null {
    if (this.bodyState !== 0) throw new TypeError('The request body can be read only once.');
    const h = this.req.headers;
    if (h['transfer-encoding'] === undefined) {
      const cl = h['content-length'];
      if (cl === undefined || cl === '0') return null;
    }
    this.bodyState = 1;
    this.sendContinue();
    return incomingBodyStream(this.req, () => (this.bodyState = 2));
  }

  /**
   * The whole body straight from the socket, no web stream (a stream per POST costs more than the rest
   * of the request). Past `limit` it stops, discards the rest and resolves null (the kernel answers 413).
   */
  readBody(limit: number): Promise<Uint8Array | null> {
    if (this.bodyState !== 0) return Promise.reject(new TypeError('The request body can be read only once.'));
    const req = this.req;
    const h = req.headers;
    if (h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0')) return Promise.resolve(new Uint8Array(0));
    // Asked for after the connection closed (a slow listener, a request queued in a batch): its events
    // are over and would never settle the read.
    if (req.destroyed) return Promise.reject(clientGoneError());
    this.bodyState = 1;
    this.sendContinue();
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      const done = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        total += chunk.length;
        if (total > limit) {
          done();
          this.bodyState = 2;
          // Discard the rest so the 413 can still be written; the writer then closes the connection.
          req.on('error', noop);
          req.resume();
          resolve(null);
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        done();
        resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
      };
      const onError = (err: Error) => {
        done();
        reject(err);
      };
      const onClose = () => {
        if (req.complete) return;
        done();
        reject(clientGoneError());
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
    });
  }

  /**
   * `Expect: 100-continue`: the client waits for this before sending the body. It goes out only when
   * the kernel really reads the body — a request refused first (413 on its Content-Length) never gets
   * it, so the client never sends the body at all.
   */
  private sendContinue(): void {
    const pending = (this.req as ContinuableRequest)[AWAITING_CONTINUE];
    if (pending) {
      (this.req as ContinuableRequest)[AWAITING_CONTINUE] = undefined;
      pending.writeContinue();
    }
  }
}

function clientGoneError(): Error {
  return Object.assign(new Error('The client closed the connection before the request body was complete.'), { code: 'ECONNRESET' });
}

/**
 * A web stream over the request body with backpressure (the socket is paused while the reader is
 * behind). Cancelling it does not destroy the connection — the rest of the body is discarded, so a
 * response (e.g. 413) can still be written; the writer then closes the connection.
 */
function incomingBodyStream(req: http.IncomingMessage, onCancel: () => void): ReadableStream<Uint8Array> {
  let finished = false;
  let onData: (chunk: Buffer) => void;
  let onEnd: () => void;
  let onError: (err: Error) => void;
  let onClose: () => void;
  const detach = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('close', onClose);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onData = (chunk) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        onEnd = () => {
          if (finished) return;
          finished = true;
          detach();
          controller.close();
        };
        onError = (err) => {
          if (finished) return;
          finished = true;
          detach();
          controller.error(err);
        };
        onClose = () => {
          // 'close' without 'end': the client went away mid-body.
          if (!finished) onError(clientGoneError());
        };
        // Already closed (see readBody): no event will come.
        if (req.destroyed) {
          finished = true;
          controller.error(clientGoneError());
          return;
        }
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onError);
        req.on('close', onClose);
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        if (!finished) {
          finished = true;
          detach();
          onCancel();
          // Discard the rest (the response is still to be written; the writer closes the connection).
          req.on('error', noop);
          req.resume();
        }
      },
    },
    { highWaterMark: 1 },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Response: HttpResponse → ServerResponse

function noop(): void {}

function reportError(app: NodeApp, message: string, err: unknown): void {
  const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  const line = `${message}: ${detail}`;
  try {
    if (app.log) {
      app.log('error', line);
      return;
    }
  } catch {
    // the log itself failed: fall through to stderr
  }
  try {
    process.stderr.write(`irms-web: ${line}\n`);
  } catch {
    // nothing left to report to
  }
}

const INTERNAL_ERROR_BODY = 'Internal Server Error';

/** The last resort when the application failed: a minimal 500, or a reset when bytes were already sent. */
function sendInternalError(res: http.ServerResponse): void {
  if (res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  try {
    res.shouldKeepAlive = false;
    res.writeHead(500, ['content-type', 'text/plain; charset=UTF-8', 'content-length', String(INTERNAL_ERROR_BODY.length), 'cache-control', 'no-store']);
    res.end(res.req.method === 'HEAD' ? undefined : INTERNAL_ERROR_BODY);
  } catch {
    res.destroy();
  }
}

function runTerminate(app: NodeApp, terminate: () => void): void {
  try {
    const result = terminate() as unknown;
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(undefined, (err: unknown) => reportError(app, 'kernel.terminate failed', err));
    }
  } catch (err) {
    reportError(app, 'kernel.terminate failed', err);
  }
}

function isStream(body: unknown): body is ReadableStream<Uint8Array> {
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

function cancelQuietly(stream: ReadableStream<Uint8Array>): void {
  try {
    stream.cancel().catch(noop);
  } catch {
    // a locked stream: nothing to cancel from here
  }
}

/** A Content-Length value worth repeating on HEAD: decimal digits only (one value, no list). */
const DECIMAL = /^[0-9]{1,16}$/;

/** Shared per server: whether a shutdown has begun (answers then carry `Connection: close`). */
interface ServerState {
  closing: boolean;
}

/**
 * Writes the kernel's response. Status and headers go in one `writeHead` (Set-Cookie repeated); a
 * string or byte body goes in one `end` with an exact Content-Length; a stream is copied chunk by chunk
 * with backpressure and cancelled when the client leaves. HEAD, 1xx, 204 and 304 never carry a body;
 * HEAD carries the Content-Length GET would (its body's length, or, for the body the kernel emptied,
 * the length the kernel declared).
 */
function writeResponse(app: NodeApp, req: http.IncomingMessage, res: http.ServerResponse, source: IncomingSource, response: NodeResponse, state: ServerState): void {
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

const kTerminate = Symbol('irms.terminate');
type TerminableResponse = http.ServerResponse & { [kTerminate]?: () => void };

/** The native adapter as a plain `request` listener, for hosts that manage their own `http.Server`. */
export function createNodeListener(app: NodeApp, state: ServerState = { closing: false }): Listener {
  const fail = (res: http.ServerResponse, err: unknown) => {
    // A request body cut off by the client (or a request timeout) is not an application error.
    const clientGone = res.destroyed && (err as { code?: unknown } | null)?.code === 'ECONNRESET';
    if (!clientGone) reportError(app, 'Unhandled error while handling a request', err);
    sendInternalError(res);
  };
  // One shared 'close' listener (no per-request closure): runs the request's terminate once the
  // response has been written, or the client has gone.
  const onResponseClose = function (this: TerminableResponse) {
    const terminate = this[kTerminate];
    this[kTerminate] = undefined;
    if (terminate) runTerminate(app, terminate);
  };
  const respond = (req: http.IncomingMessage, res: http.ServerResponse, source: IncomingSource, handled: Handled) => {
    try {
      if (handled.terminate) {
        (res as TerminableResponse)[kTerminate] = handled.terminate;
        res.on('close', onResponseClose);
      }
      writeResponse(app, req, res, source, handled.response, state);
    } catch (err) {
      const body = handled?.response?.body;
      if (isStream(body) && !body.locked) cancelQuietly(body);
      fail(res, err);
    }
  };
  return function onRequest(req, res) {
    let source: IncomingSource;
    let result: Handled | Promise<Handled>;
    try {
      source = new IncomingSource(req);
      result = app.handle(source);
    } catch (err) {
      fail(res, err);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (handled) => respond(req, res, source, handled),
        (err: unknown) => fail(res, err),
      );
    } else {
      respond(req, res, source, result);
    }
  };
}

/** `@hono/node-server` in front of `app.fetch`, for comparison (dev dependency, loaded on demand). */
export async function createHonoListener(app: NodeApp): Promise<Listener> {
  const fetch = app.fetch;
  if (typeof fetch !== 'function') throw new TypeError('The hono adapter needs app.fetch.');
  const specifier = '@hono/node-server';
  const mod = (await import(specifier).catch((error: unknown) => {
    throw new Error(`The hono adapter needs the ${specifier} package, which irms-web does not install: npm i ${specifier}`, { cause: error });
  })) as {
    getRequestListener(
      fetch: (req: Request, env: { incoming: http.IncomingMessage }) => Response | Promise<Response>,
      options?: { errorHandler?: (err: unknown) => Response | Promise<Response> },
    ): Listener;
  };
  return mod.getRequestListener(
    (request, env) =>
      fetch(request, {
        remoteAddress: env.incoming.socket.remoteAddress ?? '',
        rawTarget: env.incoming.url,
        protocol: 'HTTP/' + env.incoming.httpVersion,
      }),
    {
      errorHandler: (err) => {
        reportError(app, 'Unhandled error while handling a request', err);
        return new Response(INTERNAL_ERROR_BODY, { status: 500, headers: { 'content-type': 'text/plain; charset=UTF-8' } });
      },
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Server

const REASONS: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 413: 'Payload Too Large', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

function rawResponse(status: number, extra = ''): string {
  return `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`;
}

/** The adapter's own 405 (CONTRACT §8.6, §9): CONNECT, and methods Node's parser refuses. */
const METHOD_NOT_ALLOWED = rawResponse(405, `Allow: ${DEFAULT_METHODS.join(', ')}\r\nX-Robots-Tag: noindex\r\n`);

/** A request line's start: an RFC 9110 token (a method) and then a space, or the end of what arrived. */
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?: |$)/;

/**
 * Whether llhttp refused the request for its method: a lower-case (`get`) or unknown (`BREW`) token
 * followed by a space. `HPE_INVALID_METHOD` also covers what is no request line at all (binary
 * garbage, a leading space, a status line, `GET\t/`): those stay a 400.
 */
function refusedForMethod(err: Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown }): boolean {
  if (err.code !== 'HPE_INVALID_METHOD') return false;
  const packet = err.rawPacket;
  if (!Buffer.isBuffer(packet)) return false;
  // The failing byte is in this packet; its request line starts after the last LF before it (an
  // earlier request of the same packet ends there).
  const at = typeof err.bytesParsed === 'number' ? Math.min(Math.max(0, err.bytesParsed), packet.length) : 0;
  const start = at > 0 ? packet.lastIndexOf(0x0a, at - 1) + 1 : 0;
  return METHOD_TOKEN.test(packet.toString('latin1', start, Math.min(packet.length, start + 256)));
}

/** Parse errors and timeouts: answer (unless a response is already under way) and close. */
function onClientError(err: Error & { code?: string }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && (!inFlight || !inFlight.headersSent)) {
    const status =
      err.code === 'HPE_HEADER_OVERFLOW' ? 431
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408
      : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? 413
      : refusedForMethod(err) ? 405
      : 400;
    try {
      socket.end(status === 405 ? METHOD_NOT_ALLOWED : rawResponse(status));
    } catch {
      // the socket went away meanwhile
    }
  }
  // Give the answer a moment to leave, then make sure the connection is gone.
  if (!socket.destroyed) setTimeout(() => socket.destroy(), 1000).unref();
}

/** CONNECT: no tunnels here. */
function onConnect(_req: http.IncomingMessage, socket: Socket): void {
  socket.on('error', noop);
  try {
    socket.end(METHOD_NOT_ALLOWED);
  } catch {
    // gone already
  }
  setTimeout(() => socket.destroy(), 1000).unref();
}

function writeStderr(line: string): void {
  try {
    process.stderr.write(line + '\n');
  } catch {
    // stderr closed
  }
}

/** Serves `app` on `node:http`; resolves once listening. */
export async function serve(app: NodeApp, options: ServeOptions = {}): Promise<NodeServer> {
  const config = app.config ?? {};
  const adapter: NodeAdapter = options.adapter ?? 'native';
  const hostname = options.hostname ?? config.host ?? '127.0.0.1';
  const port = options.port ?? config.port ?? 8000;
  const requestTimeout = options.requestTimeout ?? config.requestTimeoutMs ?? NODE_DEFAULTS.requestTimeout;
  let headersTimeout = options.headersTimeout ?? config.headersTimeoutMs ?? NODE_DEFAULTS.headersTimeout;
  // Node refuses headersTimeout > requestTimeout.
  if (requestTimeout > 0 && headersTimeout > requestTimeout) headersTimeout = requestTimeout;
  const keepAliveTimeout = options.keepAliveTimeout ?? config.keepAliveTimeoutMs ?? NODE_DEFAULTS.keepAliveTimeout;
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 20_000);
  const connectionsCheckingInterval = options.connectionsCheckingInterval ?? Math.min(5_000, Math.max(100, Math.floor(shortest / 4)));
  const defaultDeadline = options.shutdownDeadlineMs ?? config.shutdownDeadlineMs ?? NODE_DEFAULTS.shutdownDeadlineMs;

  const state: ServerState = { closing: false };
  let listener: Listener;
  if (adapter === 'hono') listener = await createHonoListener(app);
  else {
    const native = createNodeListener(app, state);
    listener = options.batch === false ? native : batchUnderLoad(native, (err) => reportError(app, 'Unhandled error while handling a request', err));
  }
  const server = http.createServer(
    {
      joinDuplicateHeaders: true,
      insecureHTTPParser: false,
      headersTimeout,
      requestTimeout,
      keepAliveTimeout,
      connectionsCheckingInterval,
    } as http.ServerOptions,
    listener,
  );
  server.keepAliveTimeout = keepAliveTimeout;
  server.on('clientError', onClientError);
  server.on('connect', onConnect);
  // With a listener here Node no longer answers `100 Continue` by itself (see IncomingSource.body()).
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (adapter === 'native') (req as ContinuableRequest)[AWAITING_CONTINUE] = res;
    else res.writeContinue();
    listener(req, res);
  });

  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host: hostname });
  });
  // After the start, server errors (e.g. EMFILE on accept) are reported, never thrown.
  server.on('error', (err) => reportError(app, 'Server error', err));

  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;

  let closing: Promise<void> | null = null;
  let forceClose: (() => void) | null = null;
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
  const onSignal = (signal: NodeJS.Signals) => {
    if (forceClose) {
      writeStderr(`irms-web: ${signal} again, closing every connection now`);
      forceClose();
      return;
    }
    const deadline = defaultDeadline;
    writeStderr(`irms-web: ${signal} received, draining in-flight requests (deadline ${deadline} ms)`);
    handle.close(deadline).then(
      () => {
        writeStderr('irms-web: stopped');
        process.exit(0);
      },
      () => process.exit(0),
    );
  };
  const handleSignals = options.handleSignals ?? true;
  if (handleSignals) for (const s of signals) process.on(s, onSignal);

  const handle: NodeServer = {
    server,
    port: boundPort,
    hostname,
    adapter,
    close(deadlineMs = defaultDeadline) {
      if (closing) return closing;
      state.closing = true;
      closing = new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const force = () => {
          server.closeAllConnections();
          for (const s of sockets) s.destroy();
        };
        forceClose = force;
        server.close(() => {
          if (timer) clearTimeout(timer);
          if (handleSignals) for (const s of signals) process.off(s, onSignal);
          resolve();
        });
        for (const socket of sockets) {
          const res = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
          if (!res) {
            // Idle keep-alive, or connected without a complete request yet (Node's close() leaves those open).
            socket.destroy();
          } else {
            // In flight: let it finish, then close instead of keeping the connection alive.
            if (!res.headersSent) res.shouldKeepAlive = false;
            res.once('close', () => socket.destroySoon());
          }
        }
        timer = setTimeout(force, Math.max(0, deadlineMs));
      });
      return closing;
    },
  };
  return handle;
}
