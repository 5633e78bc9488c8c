/**
 * The types the Node adapter's files share: what it needs from an application and from a kernel
 * response, the `request` listener, and the per-server state. A file of their own so that the request
 * side, the writer, the listeners and `serve()` name them without importing one another.
 */
import type http from 'node:http';
import type { RequestSource, ConnectionInfo } from '../../http/source.ts';
import type { ResponseBody } from '../../http/response.ts';

/** What the adapter needs from a kernel response (the kernel's `HttpResponse` fits). */
export interface NodeResponse {
  status: number;
  body: ResponseBody;
  readonly headers: {
    entries(): Iterable<[string, string]>;
    /** Optional fast path: every line appended as name, value, … (the kernel's ResponseHeaders has it). */
    appendTo?(out: string[]): void;
    /** True when a value may hold a character beyond ASCII (written as Latin-1, one byte each). */
    readonly beyondAscii?: boolean;
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
  /** Settings `serve()` falls back to when an option is not given; `debug` with a non-loopback address makes it log a WARNING. */
  readonly config?: {
    debug?: boolean;
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
  terminate: (() => void | Promise<void>) | null;
  /** The kernel's request (the `App` of `createApp()` gives it): failures of its response are logged on its logger. */
  request?: RequestLogger;
}

/** What the adapter needs of a request to log on it: its logger (request url, method and id go with each record). */
export interface RequestLogger {
  readonly logger: { error(channel: string, message: string): void };
}

export type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * Shared per server: whether a shutdown has begun. The native listener then starts no request that
 * waits behind another answer, and the last answer under way on each connection carries
 * `Connection: close` (listener.ts, closeAfterPending).
 */
export interface ServerState {
  closing: boolean;
  /**
   * serve()'s `sendTimeout` (ms, 0 for none): armed on a connection only when an answer is left
   * waiting on a client that does not read it (writeResponse, pipeStream).
   */
  sendTimeout?: number;
  /**
   * serve()'s, from its close() on: work the answers leave behind while it closes — the cancel() of a
   * stream whose client was cut, a kernel.terminate — that close() waits for (at most 1 s) before it
   * resolves, so the process does not exit under an application's cleanup. Entries leave once settled;
   * none is kept before close(), so that a cancel() that never settles holds nothing on a running server.
   */
  settling?: Set<Promise<unknown>>;
}

/** Adds `work` to what close() waits for, while the server closes; it leaves the set once settled. */
export function settleBeforeClose(state: ServerState, work: Promise<unknown>): void {
  const settling = state.settling;
  if (settling === undefined) return;
  settling.add(work);
  void work.then(() => settling.delete(work));
}
