/**
 * `node dist/server.js`: the application on `node:http` (CONTRACT §1).
 *
 * Configuration comes from the environment through `createApp()` (HOST, PORT, APP_ENV, APP_DEBUG,
 * the timeouts and the shutdown deadline, CONTRACT §2). One line goes to stderr once listening; with
 * debug on and a non-loopback HOST, a WARNING line follows. SIGTERM/SIGINT drain in-flight requests
 * within SHUTDOWN_DEADLINE_MS, then the process exits 0 (see `serve()` in ./node.ts).
 */
import { createApp } from '../app/create-app.ts';
import { serve } from './node.ts';

/** 127.0.0.0/8, ::1, localhost (and IPv4-mapped loopback). */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

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
  const handle = await serve(app, {
    hostname: config.host,
    port: config.port,
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    shutdownDeadlineMs: config.shutdownDeadlineMs,
  });
  process.stderr.write(`irms-web listening on http://${urlHost(handle.hostname)}:${handle.port} (env=${config.env}, debug=${config.debug})\n`);
  if (config.debug && !isLoopback(handle.hostname)) {
    // A log record (LOG_FORMAT applies), so log collectors see it like any other WARNING.
    app.log(
      'warning',
      `Debug mode is on and HOST=${handle.hostname} is not a loopback address: the debug error pages and the profiler expose source code, configuration and request data to anyone who can reach this port. Set APP_DEBUG=0 (or APP_ENV=prod) or HOST=127.0.0.1.`,
    );
  }
}

main().catch((err: unknown) => {
  const e = err as NodeJS.ErrnoException;
  const message = e?.code === 'EADDRINUSE' || e?.code === 'EACCES' || e?.code === 'EADDRNOTAVAIL' ? e.message : (e?.stack ?? String(err));
  process.stderr.write(`irms-web: cannot start: ${message}\n`);
  process.exit(1);
});
