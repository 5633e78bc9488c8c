/**
 * `node dist/server.js`: the application on `node:http` (CONTRACT §1).
 *
 * Configuration comes from the environment through `createApp()` (HOST, PORT, APP_ENV, APP_DEBUG,
 * the timeouts and the shutdown deadline, CONTRACT §2). One line goes to stderr once listening (the
 * WARNING for debug on a non-loopback HOST is `serve()`'s own). SIGTERM/SIGINT drain in-flight requests
 * within SHUTDOWN_DEADLINE_MS, then the process exits 0 (see `serve()` in ./node/serve.ts).
 */
import { createApp } from '../app/create-app.ts';
import { listeningLine } from './listen-address.ts';
import { serve } from './node.ts';

async function main(): Promise<void> {
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp();
  } catch (err) {
    // Invalid configuration: the message names the variable.
    process.stderr.write(`irms-web: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  const { config } = app;
  let handle: Awaited<ReturnType<typeof serve>>;
  try {
    handle = await serve(app, {
      hostname: config.host,
      port: config.port,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      shutdownDeadlineMs: config.shutdownDeadlineMs,
    });
  } catch (err) {
    // A host that does not resolve, a port in use or not allowed: say which setting.
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(`irms-web: cannot listen on HOST=${config.host} PORT=${config.port}: ${e?.message ?? String(err)}\n`);
    process.exit(1);
  }
  // A promise the application left to reject unheard (a fire-and-forget call) would end the process,
  // and with it every client's connection (Node's default): it is logged instead, as an error.
  process.on('unhandledRejection', (reason: unknown) => {
    app.log('error', `Unhandled promise rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
  process.stderr.write(listeningLine(handle.hostname, handle.port, config.env, config.debug) + '\n');
}

main().catch((err: unknown) => {
  const e = err as NodeJS.ErrnoException;
  const message = e?.code === 'EADDRINUSE' || e?.code === 'EACCES' || e?.code === 'EADDRNOTAVAIL' ? e.message : (e?.stack ?? String(err));
  process.stderr.write(`irms-web: cannot start: ${message}\n`);
  process.exit(1);
});
