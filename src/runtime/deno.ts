/**
 * `deno run --allow-net --allow-env --allow-read dist/deno.js`: the application on `Deno.serve`
 * (CONTRACT §1). Bundled with `platform: 'neutral'`: no `node:` import may reach this file.
 *
 * Same configuration as the Node entry (HOST, PORT, APP_ENV, APP_DEBUG, SHUTDOWN_DEADLINE_MS via
 * `createApp()`), same start line on stderr and the same WARNING for debug on a non-loopback HOST.
 * SIGTERM/SIGINT: `server.shutdown()` (stop accepting, let in-flight requests finish), bounded by the
 * shutdown deadline, then `Deno.exit(0)`. If the server stops accepting connections on its own (EMFILE
 * on accept), the process logs it CRITICAL and exits 1, so that a supervisor restarts it.
 *
 * Limitations on Deno, by construction of `Deno.serve` (2.9.6; README, "Decisions"):
 * - No header or keep-alive timeout is enforced: `Deno.serve` has no options for them and hyper applies
 *   none, so HEADERS_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS apply to Node only, and a silent or idle
 *   client keeps its connection as long as it likes. Run this entry behind a reverse proxy that
 *   enforces them. REQUEST_TIMEOUT_MS bounds the body read only (denoServeHandler): 408 with
 *   `Connection: close`.
 * - Deno ignores a `Connection: close` answer: the connection stays open until the client closes it
 *   (or, when the body was not read whole, until the body ends).
 * - Deno answers `Expect: 100-continue` itself, before the handler runs.
 * - `server.shutdown()` cuts off request bodies still arriving (that request ends in a 400).
 * - A body over BODY_LIMIT gets its 413 at once, but hyper reads the rest of the upload and discards it
 *   (memory stays bounded).
 * - Deno does not say which HTTP version a request used: an HTTP/1.0 client gets no
 *   `Response::prepare` 1.0 headers (`Pragma: no-cache`, `Expires: -1`).
 * - hyper's head limits are not Node's: at most 100 headers (more is a bare 400), and a bare 400 for a
 *   head of about 100 KB or more; denoServeHandler answers a target over 16 KiB with Node's 431.
 * The request URL Deno hands over keeps the target as sent (`/a/../b` is not resolved), as on Node.
 * The scheme is always `http` (this entry serves no TLS), whatever the target says.
 */
import { createApp } from '../app/create-app.ts';
import { denoServeHandler } from './deno-batch.ts';
import { isLoopback, listeningLine, publicDebugWarning } from './listen-address.ts';
import { LEVELS } from '../log/levels.ts';
import { reportedStreamFailures } from '../http/failing-stream-report.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const Deno: any;


function main(): void {
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp();
  } catch (err) {
    console.error(`irms-web: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(1);
    return;
  }
  const { config } = app;

  const listen = (options: unknown, handler: unknown) => {
    try {
      return Deno.serve(options, handler);
    } catch (err) {
      // A host that does not resolve, a port in use or not allowed: say which setting.
      console.error(`irms-web: cannot listen on HOST=${config.host} PORT=${config.port}: ${err instanceof Error ? err.message : String(err)}`);
      Deno.exit(1);
    }
  };
  // As on Node (server.ts): a promise the application left to reject unheard is logged, not the end of
  // the process for every client.
  globalThis.addEventListener('unhandledrejection', (event: PromiseRejectionEvent) => {
    event.preventDefault();
    const reason = event.reason;
    app.log('error', `Unhandled promise rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
  // The signal listeners come first: the listening line is printed inside Deno.serve, and a supervisor
  // may signal as soon as it sees it.
  let server: { shutdown(): Promise<void>; finished: Promise<void> } | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.error(`irms-web: ${signal} again, exiting now`);
      Deno.exit(0);
      return;
    }
    stopping = true;
    const deadline = config.shutdownDeadlineMs;
    console.error(`irms-web: ${signal} received, draining in-flight requests (deadline ${deadline} ms)`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadline)));
    Promise.race([Promise.resolve(server?.shutdown()).catch(() => {}), expired]).then(() => {
      clearTimeout(timer);
      console.error('irms-web: stopped');
      Deno.exit(0);
    });
  };
  for (const signal of ['SIGTERM', 'SIGINT']) {
    try {
      Deno.addSignalListener(signal, () => stop(signal));
    } catch {
      // Windows supports SIGINT (and SIGBREAK) only.
    }
  }

  server = listen(
    {
      hostname: config.host,
      port: config.port,
      onListen({ hostname, port }: { hostname: string; port: number }) {
        console.error(listeningLine(hostname, port, config.env, config.debug));
        if (config.debug && !isLoopback(config.host)) {
          app.log(
            'warning',
            publicDebugWarning(config.host),
          );
        }
      },
      onError(err: unknown): Response {
        try {
          // A streamed body that failed was logged already, on its request's logger (with its url).
          if (!(typeof err === 'object' && err !== null && reportedStreamFailures.has(err))) {
            app.log('error', `Unhandled error while handling a request: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          }
        } catch {
          // the log failed too
        }
        return new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain; charset=UTF-8' } });
      },
    },
    // Plain HTTP only: the scheme is never the one a client writes in its target.
    denoServeHandler(app, { scheme: 'http', requestTimeout: config.requestTimeoutMs }),
  );

  // Deno.serve's accept loop can end on its own (`finished` rejects on EMFILE at accept). With no
  // listening socket the event loop would empty and Deno end with 0, which a supervisor takes for a
  // deliberate stop: say so at CRITICAL and exit 1 instead.
  const died = (cause: string) => {
    if (stopping) return;
    app.services.logStream.write({
      datetime: new Date(),
      channel: 'app',
      level: LEVELS.critical,
      levelName: 'critical',
      message: `The server stopped accepting connections: ${cause}`,
      context: {},
      extra: {},
    });
    Deno.exit(1);
  };
  server?.finished.then(
    () => died('its accept loop ended'),
    (err: unknown) => died(String(err)),
  );
}

main();
