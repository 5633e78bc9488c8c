/**
 * `serve(app, options)`: the `node:http` server around one of the listeners — options and their
 * defaults, 100-continue, connection tracking, `close()` with its deadline, and the SIGTERM/SIGINT
 * drain. The server's life cycle only; reading and writing requests are in the sibling files.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { knownOptions, shownValue as shown } from '../option-names.ts';
import { isLoopback, publicDebugWarning } from '../listen-address.ts';
import { batchUnderLoad } from '../node-batch.ts';
import { onClientError, onConnect } from './client-errors.ts';
import { reportError } from './failures.ts';
import { AWAITING_CONTINUE, type ContinuableRequest } from './incoming-source.ts';
import { closeAfterPending, createHonoListener, createNodeListener } from './listener.ts';
import type { Listener, NodeApp, ServerState } from './types.ts';

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
  /**
   * A connection whose client takes no byte of its answer for this long (it stopped reading) is closed,
   * ms; 0 for never. Default 60 000, nginx's `send_timeout`. Without it a client that stopped reading
   * kept its connection, and the answer held for it, for ever: no other timeout runs once the request
   * is in. A request still being computed, or a stream with nothing new to send, is not waiting for
   * the client.
   */
  sendTimeout?: number;
  /** How often Node checks the two request timeouts, ms. Default: a quarter of the shorter timeout, 100–5 000. */
  connectionsCheckingInterval?: number;
  /**
   * In-flight requests get this long to finish on `close()`, then their sockets are destroyed. Default:
   * `app.config.shutdownDeadlineMs`, else 10 000. Above 2^31-1 (about 24.8 days, `Infinity` included)
   * it is 2^31-1; a negative or non-number value is refused (RangeError).
   */
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
   * when every connection is gone. Idempotent. On a connection with pipelined requests, every request
   * whose handler has run gets its answer and the last one closes the connection; requests still
   * waiting their turn there (listener.ts) are dropped, as their handlers never ran. `deadlineMs` as
   * `shutdownDeadlineMs` (clamped to 2^31-1; negative or not a number: a rejected RangeError, nothing closed).
   */
  close(deadlineMs?: number): Promise<void>;
}

const NODE_DEFAULTS = { headersTimeout: 60_000, requestTimeout: 300_000, keepAliveTimeout: 5_000, sendTimeout: 60_000, shutdownDeadlineMs: 10_000 };

/** The longest delay `setTimeout` takes: a longer one fires after 1 ms (TimeoutOverflowWarning), which would cut every in-flight request at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A shutdown deadline as a timer delay: clamped to MAX_TIMER_MS (a longer wait is as good as none); negative, NaN or not a number is a RangeError. */
function shutdownDeadline(ms: unknown, what: string): number {
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) {
    throw new RangeError(`${what} must be a number of milliseconds >= 0, got ${typeof ms === 'number' ? ms : typeof ms}`);
  }
  return Math.min(ms, MAX_TIMER_MS);
}

function writeStderr(line: string): void {
  try {
    process.stderr.write(line + '\n');
  } catch {
    // stderr closed
  }
}

/** A WARNING on the application's log (stderr without one), as `reportError` reports errors. */
function logWarning(app: NodeApp, message: string): void {
  try {
    if (app.log) {
      app.log('warning', message);
      return;
    }
  } catch {
    // the log itself failed: fall through to stderr
  }
  writeStderr(`irms-web: WARNING: ${message}`);
}

/** Every option's name: a name not here (`host` for `hostname`) would be ignored without a word. */
const SERVE_OPTION_NAMES: { readonly [K in keyof ServeOptions]-?: true } = {
  port: true,
  hostname: true,
  headersTimeout: true,
  requestTimeout: true,
  keepAliveTimeout: true,
  sendTimeout: true,
  connectionsCheckingInterval: true,
  shutdownDeadlineMs: true,
  handleSignals: true,
  adapter: true,
  batch: true,
};

/** Names no edit distance finds (keyed lower-case): the app's configuration calls the address `host` (HOST). */
const SERVE_OPTION_ALIASES: ReadonlyMap<string, string> = new Map([['host', 'hostname']]);

/**
 * Refuses what a JavaScript caller could pass by mistake: an unknown name (`host` bound to the
 * default 127.0.0.1 instead of the address asked), a port given as a string, a flag that is not a
 * boolean (`batch: 'no'` is truthy). Options given as `undefined` count as not given.
 */
function checkServeOptions(options: unknown): void {
  const given = knownOptions('serve', options, Object.keys(SERVE_OPTION_NAMES), SERVE_OPTION_ALIASES);
  const { port, hostname } = given;
  if (port !== undefined && !(typeof port === 'number' && Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw new TypeError(`The serve option "port" must be an integer between 0 and 65535, got ${shown(port)}.`);
  }
  if (hostname !== undefined && typeof hostname !== 'string') throw new TypeError(`The serve option "hostname" must be a string, got ${shown(hostname)}.`);
  // Node listens on every interface for an empty host: a `hostname: process.env.BIND ?? '127.0.0.1'`
  // with BIND set but empty put the debug pages on the network, where an empty HOST means 127.0.0.1.
  if (hostname === '') throw new TypeError('The serve option "hostname" must be a host name or an IP address, got "".');
  // Node's socket.setTimeout checks it only when a connection arrives, where a throw would be uncaught.
  const { sendTimeout } = given;
  if (sendTimeout !== undefined && !(typeof sendTimeout === 'number' && Number.isInteger(sendTimeout) && sendTimeout >= 0 && sendTimeout <= MAX_TIMER_MS)) {
    throw new TypeError(`The serve option "sendTimeout" must be an integer number of milliseconds between 0 and ${MAX_TIMER_MS}, got ${shown(sendTimeout)}.`);
  }
  for (const flag of ['batch', 'handleSignals'] as const) {
    const value = given[flag];
    if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`The serve option "${flag}" must be true or false, got ${shown(value)}.`);
  }
}

/** node:http's own field: the answer being written on the connection. */
type AnsweringSocket = Socket & { _httpMessage?: http.ServerResponse | null };

/**
 * A socket's inactivity timer fired (the keep-alive wait, or the `sendTimeout` writeResponse armed:
 * nothing read or written for that long). Node would destroy the socket: so it is when no answer is
 * under way (an idle keep-alive connection) and when the client has left bytes of its answer unread all
 * that time. A later request still being computed (nothing to write yet), or an event stream with
 * nothing new to say, keeps its connection: the request timeouts and the application decide there.
 */
function onSocketTimeout(socket: Socket): void {
  const answer = (socket as AnsweringSocket)._httpMessage;
  if (!answer || socket.writableLength > 0 || answer.writableLength > 0) socket.destroy();
}

/** Serves `app` on `node:http`; resolves once listening. */
export async function serve(app: NodeApp, options: ServeOptions = {}): Promise<NodeServer> {
  checkServeOptions(options);
  const config = app.config ?? {};
  const adapter: NodeAdapter = options.adapter ?? 'native';
  if (adapter !== 'native' && adapter !== 'hono') throw new TypeError(`The adapter option must be 'native' or 'hono', got ${JSON.stringify(adapter)}.`);
  const hostname = options.hostname ?? config.host ?? '127.0.0.1';
  const port = options.port ?? config.port ?? 8000;
  const requestTimeout = options.requestTimeout ?? config.requestTimeoutMs ?? NODE_DEFAULTS.requestTimeout;
  let headersTimeout = options.headersTimeout ?? config.headersTimeoutMs ?? NODE_DEFAULTS.headersTimeout;
  // Node refuses headersTimeout > requestTimeout.
  if (requestTimeout > 0 && headersTimeout > requestTimeout) headersTimeout = requestTimeout;
  const keepAliveTimeout = options.keepAliveTimeout ?? config.keepAliveTimeoutMs ?? NODE_DEFAULTS.keepAliveTimeout;
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 20_000);
  const connectionsCheckingInterval = options.connectionsCheckingInterval ?? Math.min(5_000, Math.max(100, Math.floor(shortest / 4)));
  const defaultDeadline = shutdownDeadline(options.shutdownDeadlineMs ?? config.shutdownDeadlineMs ?? NODE_DEFAULTS.shutdownDeadlineMs, 'shutdownDeadlineMs');

  const state: ServerState = { closing: false, sendTimeout: options.sendTimeout ?? NODE_DEFAULTS.sendTimeout };
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
  // Node's default keeps the first 2,000 header lines of a request and drops the rest silently, while
  // its parser still frames the request by them: a Content-Length or Transfer-Encoding past them
  // delivered a body the kernel never saw, and a second Host there escaped the 400 for two Hosts
  // (RFC 9112 §3.2). Without a count limit the application sees every line the parser used; the
  // head stays bounded by Node's header size limit (431).
  server.maxHeadersCount = 0;
  // A client that stops reading an answer (nginx: send_timeout): writeResponse arms the socket's
  // timer when an answer is left waiting on its client (not `server.timeout`, which would arm it on
  // every connection, and re-arm it on each read and write of every request). Node destroys a socket
  // whose timer fired unless a 'timeout' listener takes it over: this one does.
  server.on('timeout', onSocketTimeout);
  server.on('clientError', onClientError);
  server.on('connect', onConnect);
  // With a listener here Node no longer answers `100 Continue` by itself (see IncomingSource.body()).
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (adapter === 'native') (req as ContinuableRequest)[AWAITING_CONTINUE] = res;
    else res.writeContinue();
    listener(req, res);
  });
  // An `Expect` other than 100-continue (`Expect: foo`, `100-continu`): without a listener here Node
  // answers a bare 417 by itself (no X-Robots-Tag, nothing logged or profiled). nginx in front of
  // Symfony (ngx_http_test_expect acts on 100-continue only) and Deno's hyper ignore such an
  // expectation, as RFC 9110 §10.1.1 allows: the request is answered as any other.
  server.on('checkExpectation', listener);

  const sockets = new Set<Socket>();
  /** Set by close(): called once the last connection's 'close' has been handled. */
  let onLastSocketClosed: (() => void) | null = null;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      // Next tick: after this socket's other 'close' listeners, which node:http adds later (its answer's
      // 'close': a cut stream's cancel(), a kernel.terminate, both then in `settling`).
      if (onLastSocketClosed !== null && sockets.size === 0) process.nextTick(onLastSocketClosed);
    });
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
  // Debug pages and the profiler show source code, configuration and request data to whoever reaches
  // them. Said here rather than by the server entry, so that an application embedded with serve() (the
  // README's way, debug on by default) gets the WARNING too.
  if (config.debug === true && !isLoopback(hostname)) logWarning(app, publicDebugWarning(hostname));

  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;

  let closing: Promise<void> | null = null;
  let forceClose: (() => void) | null = null;
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
  // Whether a signal has come already: a close() the application began itself (its own SIGTERM
  // handler, registered first, or a shutdown of its own) is no first signal, so the signal that
  // follows drains and exits rather than cutting every in-flight request as a second one does.
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled && forceClose) {
      writeStderr(`irms-web: ${signal} again, closing every connection now`);
      forceClose();
      return;
    }
    signalled = true;
    const deadline = defaultDeadline;
    writeStderr(`irms-web: ${signal} received, draining in-flight requests (deadline ${deadline} ms)`);
    // Not process.exit() once this server has drained: another serve() of the process (a second
    // port) may still be draining requests of its own, which the exit would cut.
    handle.close(deadline).then(exitOnceDrained, exitOnceDrained);
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
      let deadline: number;
      try {
        deadline = shutdownDeadline(deadlineMs, 'The close() deadline');
      } catch (err) {
        return Promise.reject(err);
      }
      state.closing = true;
      const settling = (state.settling = new Set());
      closing = new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const force = () => {
          server.closeAllConnections();
          for (const s of sockets) s.destroy();
        };
        forceClose = force;
        let serverClosed = false;
        let done = false;
        // Node calls close()'s callback when it counts no connection, which is before the sockets it
        // destroyed emit 'close' (a stream cut at the deadline had not asked its source to cancel yet).
        const afterConnections = () => {
          if (done || !serverClosed || sockets.size > 0) return;
          done = true;
          // The connections are closed; what their answers left running (a stream's cancel(), a
          // kernel.terminate) finishes before close() resolves, and SIGTERM's exit with it.
          void settled(settling).then(() => {
            if (handleSignals) {
              for (const s of signals) process.off(s, onSignal);
              exitingServers.delete(handle);
            }
            resolve();
          });
        };
        onLastSocketClosed = afterConnections;
        server.close(() => {
          if (timer) clearTimeout(timer);
          serverClosed = true;
          afterConnections();
        });
        for (const socket of sockets) {
          // In flight: the last answer under way on it (pipelined ones included) closes it once written.
          // Else idle keep-alive, or connected without a complete request yet (Node's close() leaves those open).
          if (!closeAfterPending(socket)) socket.destroy();
        }
        timer = setTimeout(force, deadline);
      });
      return closing;
    },
  };
  if (handleSignals) exitingServers.add(handle);
  return handle;
}

/**
 * The servers of this process that exit it on SIGTERM/SIGINT (`handleSignals`), until closed. A process
 * may serve on several ports (a public one and an internal one): each drains on the signal, and the
 * process exits once every one has, not as soon as the first (often idle) one is done, which cut the
 * in-flight requests of the others at once.
 */
const exitingServers = new Set<NodeServer>();
let exited = false;

/** After a signal: exits 0 once every server that handles signals has closed (each with its own deadline). */
function exitOnceDrained(): void {
  // close() is idempotent: a server whose own signal listener has run already returns its shutdown.
  void Promise.allSettled(Array.from(exitingServers, (server) => server.close())).then(() => {
    if (exited) return;
    exited = true;
    writeStderr('irms-web: stopped');
    process.exit(0);
  });
}

/** Longest close() waits, after the last connection closed, for the work their answers left running. */
const SETTLE_MS = 1_000;

/** Resolves once every entry has settled, or after SETTLE_MS: a cancel() that never returns does not hold the exit. */
function settled(work: Set<Promise<unknown>>): Promise<void> {
  if (work.size === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, SETTLE_MS);
    void Promise.allSettled([...work]).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
