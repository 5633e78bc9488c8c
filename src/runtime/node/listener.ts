/**
 * The two `request` listeners: the native one (`createNodeListener`: handle, write, then run
 * kernel.terminate once the response is out) and `@hono/node-server`'s, kept for comparison.
 * `serve()` installs one of them; hosts with their own `http.Server` use them directly.
 *
 * Pipelining. Node calls the `request` listener for every request it parses from a read, also for
 * requests whose answers must wait behind an earlier one still being written (it queues their
 * `ServerResponse`s per connection, in order). Against a client that pipelines and does not read,
 * computing them all would hold every answer in memory (a 56 KB write of 2,000 `GET`s held ≈ 270 MB of
 * debug pages). So the native listener keeps at most PIPELINE_DEPTH answers per connection under way;
 * later requests wait, unstarted, in the connection's `Pipeline`, and reading from the socket is held
 * meanwhile. Each time an answer has been written out, Node gives the next `ServerResponse` the
 * socket (its `'socket'` event), and the first waiting request starts. Answers stay in request order:
 * Node writes them in the order of its queue; only when they are computed changes. The usual case,
 * one request at a time per connection (its `ServerResponse` has the socket at once), pays one check.
 *
 * Shutdown (`closeAfterPending`): the last answer under way on a connection is the
 * one that closes it, so every request whose handler ran gets its answer; requests still waiting for
 * their turn are dropped (their handlers never ran, and the client sees the connection close after the
 * last answer, as after any `Connection: close`).
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import { INTERNAL_ERROR_BODY } from '../../http/internal-error.ts';
import { reportError, sendInternalError } from './failures.ts';
import { IncomingSource } from './incoming-source.ts';
import { settleBeforeClose, type Handled, type Listener, type NodeApp, type ServerState } from './types.ts';
import { cancelQuietly, isStream, watchStallOnTurn, writeResponse } from './write-response.ts';

/**
 * Answers per connection being computed, or computed and not yet written out (Node's `'finish'`),
 * the one being written included. Past it, pipelined requests wait unstarted. Small: a client that
 * reads gets its answers as fast (the next ones are computed while it reads), and one that does not
 * holds at most this many answers in the server (16 debug pages ≈ 1 MB, against up to 2,000 per read
 * without a bound; what the kernel's socket buffers take is written out, hence not counted).
 */
const PIPELINE_DEPTH = 16;

/** A connection's pipelined requests; made on its first request that arrives behind another answer. */
interface Pipeline {
  /** Started requests' answers that wait for the socket (behind the one being written), in order. */
  ahead: http.ServerResponse[];
  /** Requests not started yet, in order: request, response, request, response… from `head` on. */
  waiting: (http.IncomingMessage | http.ServerResponse | undefined)[];
  head: number;
  /** Reading from the socket is held for `waiting` (released when it empties). */
  holding: boolean;
}

const kPipeline = Symbol('irms.pipeline');
/** Set by `closeAfterPending`: the answer that closes the connection (null: none was under way). */
const kClosesWith = Symbol('irms.closesWith');

/** The socket fields used here; the underscored ones are node:http's own (see holdReading). */
type ConnectionSocket = Socket & {
  [kPipeline]?: Pipeline;
  [kClosesWith]?: http.ServerResponse | null;
  _httpMessage?: http.ServerResponse | null;
  _paused?: boolean;
  parser?: { resume(): void } | null;
};

/**
 * Stops reading from the socket while requests wait: otherwise the server would go on parsing (and
 * making a request and a response object for) everything the client writes, answered or not. Done as
 * node:http does for its own backpressure (parserOnIncoming): `_paused` keeps its `readStart()` calls
 * (a request's end, a body read) from resuming the socket, and it pauses the parser after the read.
 */
function holdReading(socket: ConnectionSocket, pipeline: Pipeline): void {
  if (pipeline.holding) return;
  pipeline.holding = true;
  if (socket._paused) return; // node:http holds it already; keepHolding takes over if it lets go first
  socket._paused = true;
  socket.pause();
}

/**
 * `'resume'` of a socket with a pipeline: node:http resumes reading once its own outgoing data has
 * drained (socketOnDrain), without knowing of the waiting requests. Held again in the same tick, before
 * any read can happen.
 */
function keepHolding(this: ConnectionSocket): void {
  const pipeline = this[kPipeline];
  if (pipeline !== undefined && pipeline.holding && !this._paused) {
    this._paused = true;
    this.pause();
  }
}

/** No request waits any more: read again, as node:http's socketOnDrain does (unless the socket is full). */
function releaseReading(socket: ConnectionSocket, pipeline: Pipeline): void {
  if (!pipeline.holding) return;
  pipeline.holding = false;
  if (socket._paused && !socket.writableNeedDrain) {
    socket._paused = false;
    socket.parser?.resume();
    socket.resume();
  }
}

function dropWaiting(pipeline: Pipeline): void {
  pipeline.waiting = [];
  pipeline.head = 0;
}

/**
 * `'close'` of a socket with a pipeline: its waiting requests are dropped (never started). Node emits
 * `'close'` only for the answer it was writing, not for those still queued behind it: the started ones
 * get theirs here, so that their streams are cancelled and their kernel.terminate runs (respond() and
 * writeResponse() see them destroyed if they are not computed yet).
 */
function onPipelineClose(this: ConnectionSocket): void {
  const pipeline = this[kPipeline];
  if (pipeline === undefined) return;
  this[kPipeline] = undefined;
  dropWaiting(pipeline);
  const ahead = pipeline.ahead;
  pipeline.ahead = [];
  for (const res of ahead) {
    if (!res.destroyed) res.destroy();
    res.emit('close');
  }
}

/**
 * Shutdown of one connection: requests waiting their turn are dropped (their handlers never ran), and
 * the last answer under way, its own request's or a pipelined one's, closes the connection —
 * `Connection: close` if its headers are not written yet, else the socket ends after it. Returns false
 * when nothing is under way (the caller closes the connection at once). Idempotent. For `serve()`'s
 * `close()`; the native listener calls it too once `state.closing` is set by a host of its own.
 */
export function closeAfterPending(socket: Socket): boolean {
  const s = socket as ConnectionSocket;
  const marked = s[kClosesWith];
  if (marked !== undefined) return marked !== null;
  const pipeline = s[kPipeline];
  if (pipeline !== undefined) dropWaiting(pipeline);
  const ahead = pipeline?.ahead;
  const last = ahead !== undefined && ahead.length > 0 ? ahead[ahead.length - 1]! : (s._httpMessage ?? null);
  s[kClosesWith] = last;
  if (last === null) return false;
  if (!last.headersSent) last.shouldKeepAlive = false;
  last.once('close', () => socket.destroySoon());
  return true;
}

/**
 * Whether `res` is the last answer under way on its connection: no request behind it has started.
 * At shutdown only that one says `Connection: close` (an earlier one would make Node end the
 * connection before the later answers, computed already, are written).
 */
function isLastUnderWay(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  const pipeline = (req.socket as ConnectionSocket)[kPipeline];
  if (pipeline === undefined) return true;
  const ahead = pipeline.ahead;
  // Waiting for the socket itself: last if started last; being written: last if none waits behind it.
  return res.socket === null ? ahead[ahead.length - 1] === res : ahead.length === 0;
}

/** Runs kernel.terminate; while the server closes, its work is one more thing close() waits for. */
function runTerminate(app: NodeApp, terminate: () => void | Promise<void>, state: ServerState): void {
  try {
    const result = terminate() as unknown;
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      settleBeforeClose(state, (result as Promise<unknown>).then(undefined, (err: unknown) => reportError(app, 'kernel.terminate failed', err)));
    }
  } catch (err) {
    reportError(app, 'kernel.terminate failed', err);
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
    if (terminate) runTerminate(app, terminate, state);
  };
  const respond = (req: http.IncomingMessage, res: http.ServerResponse, source: IncomingSource, handled: Handled) => {
    try {
      if (handled.terminate) {
        (res as TerminableResponse)[kTerminate] = handled.terminate;
        res.on('close', onResponseClose);
      }
      // At shutdown only the last answer under way on the connection closes it (closeAfterPending).
      // The others are written as before the shutdown, and a stream of theirs that close() cuts is waited for as any other.
      const closes = !state.closing || isLastUnderWay(req, res);
      writeResponse(app, req, res, source, handled.response, closes ? state : { closing: false, sendTimeout: state.sendTimeout, settling: state.settling }, handled.request);
      // A client gone before the answer was ready (it left mid-body): 'close' has fired already, and
      // kernel.terminate (the profile, the app's own terminate listeners) must still run, as in Symfony.
      if (res.destroyed && (res as TerminableResponse)[kTerminate]) onResponseClose.call(res);
    } catch (err) {
      const body = handled?.response?.body;
      if (isStream(body) && !body.locked) cancelQuietly(body);
      fail(res, err);
    }
  };
  const run = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (unframeable(req)) {
      refuseRequest(res);
      return;
    }
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

  /** Runs a request whose answer waits behind others; its `'socket'` (its turn) starts the next waiting one. */
  const runAhead = (req: http.IncomingMessage, res: http.ServerResponse, pipeline: Pipeline) => {
    pipeline.ahead.push(res);
    res.on('socket', onTurn);
    run(req, res);
  };

  /**
   * `'socket'` of an answer that waited behind another: the one before it has been written out, so
   * one more may be under way — the first waiting request's (one for one: requests wait only while
   * PIPELINE_DEPTH answers are under way). Synchronous, inside node:http's resOnFinish: `run` catches
   * everything, and the answer it may write at once goes to its own `ServerResponse`'s queue.
   */
  function onTurn(this: http.ServerResponse, socket: ConnectionSocket): void {
    // An answer computed while it waited is written out right after this event: serve()'s
    // sendTimeout is armed if the client leaves part of it unread.
    watchStallOnTurn(this, state);
    const pipeline = socket[kPipeline];
    if (pipeline === undefined) return;
    const ahead = pipeline.ahead;
    const at = ahead.indexOf(this);
    if (at !== -1) ahead.splice(at, 1);
    const waiting = pipeline.waiting;
    if (pipeline.head === waiting.length) return;
    if (state.closing) {
      closeAfterPending(socket);
      return;
    }
    // The client has gone (Node hands on the socket also when the write failed): run nothing more.
    if (!socket.writable) {
      dropWaiting(pipeline);
      return;
    }
    const req = waiting[pipeline.head] as http.IncomingMessage;
    const res = waiting[pipeline.head + 1] as http.ServerResponse;
    waiting[pipeline.head] = waiting[pipeline.head + 1] = undefined;
    pipeline.head += 2;
    if (pipeline.head === waiting.length) {
      dropWaiting(pipeline);
      releaseReading(socket, pipeline);
    }
    runAhead(req, res, pipeline);
  }

  /** A request whose answer must wait behind another one on its connection, or any request at shutdown. */
  const queued = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket as ConnectionSocket;
    if (state.closing) {
      const last = socket[kClosesWith];
      // close() found this connection busy: what it counted on still runs (a request it found not
      // started yet, deferred by the batching), nothing after it.
      if (last !== undefined) {
        if (last === res) run(req, res);
        return;
      }
      // Not seen by close() (a host's own server): a request nothing waits before is answered while
      // the connection is open; a pipelined one is dropped, and the connection closes after the last answer.
      if (res.socket !== null && socket.writable) run(req, res);
      else closeAfterPending(socket);
      return;
    }
    // The client has gone, or the connection is ending: drop it (its answer could not be written, and
    // no 'close' would come for it).
    if (!socket.writable) return;
    let pipeline = socket[kPipeline];
    if (pipeline === undefined) {
      pipeline = socket[kPipeline] = { ahead: [], waiting: [], head: 0, holding: false };
      socket.on('close', onPipelineClose);
      socket.on('resume', keepHolding);
    }
    if (pipeline.head < pipeline.waiting.length || pipeline.ahead.length >= PIPELINE_DEPTH - 1) {
      pipeline.waiting.push(req, res);
      holdReading(socket, pipeline);
      return;
    }
    runAhead(req, res, pipeline);
  };

  return function onRequest(req, res) {
    // The one check of the usual case: the response has the socket (no answer before it is pending).
    if (res.socket === null || state.closing) queued(req, res);
    else run(req, res);
  };
}

/**
 * What HTTP/1.1 refuses but Node's parser lets through to the listener, answered as hyper (Deno), nginx
 * and Apache answer it, with a bare 400 and a closed connection (RFC 9112):
 * - the asterisk-form target, which only OPTIONS may use (§3.2.4): `GET *` reached the kernel as path `*`;
 * - a Transfer-Encoding whose last coding is not chunked (§6.3: the body's length cannot be known, the
 *   server MUST answer 400 and close): Node read such a body up to the connection's end, or left it.
 */
function unframeable(req: http.IncomingMessage): boolean {
  if (req.url === '*' && req.method !== 'OPTIONS') return true;
  const te = req.headers['transfer-encoding'];
  return te !== undefined && !CHUNKED_LAST.test(te);
}

const CHUNKED_LAST = /(?:^|,)[ \t]*chunked[ \t]*$/i;

function refuseRequest(res: http.ServerResponse): void {
  try {
    res.shouldKeepAlive = false;
    res.writeHead(400, { 'content-length': '0' });
    res.end();
  } catch {
    res.destroy();
  }
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
