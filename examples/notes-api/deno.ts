/**
 * The notes API on Deno (from the repository root):
 *   deno run --node-modules-dir=manual --allow-net --allow-env --allow-read examples/notes-api/deno.ts
 * SIGTERM/SIGINT: stop accepting and drain, at most SHUTDOWN_DEADLINE_MS, as dist/deno.js does:
 * Deno's `shutdown()` alone would wait for an open event stream for ever.
 */
import { denoServeHandler } from '../../src/index.ts';
import { createNotesApp } from './app.ts';

// Deno types its own global; this file is not part of the Node type check.
declare const Deno: any;

const app = createNotesApp({ env: Deno.env.get('APP_DEBUG') === '1' ? 'dev' : 'prod' });
const server = Deno.serve({ hostname: app.config.host, port: app.config.port }, denoServeHandler(app));
for (const signal of ['SIGTERM', 'SIGINT']) {
  Deno.addSignalListener(signal, () => {
    const deadline = new Promise((resolve) => setTimeout(resolve, app.config.shutdownDeadlineMs));
    Promise.race([server.shutdown(), deadline]).then(() => Deno.exit(0));
  });
}
