// A child process for node-shutdown.test.ts: an application that registered its own SIGTERM handler
// before serve() (it calls close() on the handle), next to serve()'s default signal handling.
// Serves `/slow?ms=N` (answers after N ms). Prints `PORT <n>` when ready.
import { serve, type NodeServer } from '../../../src/runtime/node.ts';
import { HttpResponse } from '../../../src/http/response.ts';
import type { RequestSource } from '../../../src/http/source.ts';

let handle: NodeServer | undefined;
process.on('SIGTERM', () => {
  void handle?.close();
});

const app = {
  config: { shutdownDeadlineMs: 3000 },
  async handle(source: RequestSource) {
    const m = /^\/slow\?ms=(\d+)$/.exec(source.target);
    if (m) await new Promise((resolve) => setTimeout(resolve, Number(m[1])));
    return { response: HttpResponse.text(`done ${source.target}`), terminate() {} };
  },
};

handle = await serve(app, { port: 0, hostname: '127.0.0.1' });
process.stdout.write(`PORT ${handle.port}\n`);
// A handle of the application's own (a database pool, say) that keeps the process alive until exit.
setInterval(() => {}, 60_000);
