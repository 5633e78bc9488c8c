/**
 * `deno run --allow-net --allow-env --allow-read dist/deno.js`: the application on `Deno.serve`
 * (CONTRACT §1). Bundled with `platform: 'neutral'`: no `node:` import may reach this file.
 *
 * Same configuration as the Node entry (HOST, PORT, APP_ENV, APP_DEBUG, SHUTDOWN_DEADLINE_MS via
 * `createApp()`), same start line on stderr and the same WARNING for debug on a non-loopback HOST.
 * SIGTERM/SIGINT: `server.shutdown()` (stop accepting, let in-flight requests finish), bounded by the
 * shutdown deadline, then `Deno.exit(0)`.
 *
 * Limitations on Deno, by construction of `Deno.serve` (2.9.6; README, "Decisions"):
 * - The header/request/keep-alive timeouts of CONTRACT §10 are hyper's own; `Deno.serve` has no
 *   options for them (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS apply to Node only).
 * - Deno answers `Expect: 100-continue` itself, before the handler runs.
 * - `server.shutdown()` cuts off request bodies still arriving (that request ends in a 400).
 * - A chunked body over BODY_LIMIT gets its 413 at once, but hyper reads the rest of the upload and
 *   discards it (memory stays bounded); a `Connection: close` answer does not stop it.
 * The request URL Deno hands over keeps the target as sent (`/a/../b` is not resolved), as on Node.
 */
import { createApp } from '../app/create-app.ts';
import { denoServeHandler } from './deno-batch.ts';
import { isLoopback, listeningLine, publicDebugWarning } from './listen-address.ts';

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
  const server = listen(
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
          app.log('error', `Unhandled error while handling a request: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        } catch {
          // the log failed too
        }
        return new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain; charset=UTF-8' } });
      },
    },
    denoServeHandler(app),
  );

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
    Promise.race([Promise.resolve(server.shutdown()).catch(() => {}), expired]).then(() => {
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
}

main();
