// A child process for node-shutdown.test.ts: one application served on two ports by two serve() calls
// (a public port and an internal one, say), both with serve()'s default signal handling. Serves
// `/slow?ms=N` (answers after N ms) on both. Prints `SECOND <second>` and `PORT <first>` when ready.
import { serve } from '../../../src/runtime/node.ts';
import { HttpResponse } from '../../../src/http/response.ts';
import type { RequestSource } from '../../../src/http/source.ts';

const app = {
  config: { shutdownDeadlineMs: 3000 },
  async handle(source: RequestSource) {
    const m = /^\/slow\?ms=(\d+)$/.exec(source.target);
    if (m) await new Promise((resolve) => setTimeout(resolve, Number(m[1])));
    return { response: HttpResponse.text(`done ${source.target}`), terminate() {} };
  },
};

const first = await serve(app, { port: 0, hostname: '127.0.0.1' });
const second = await serve(app, { port: 0, hostname: '127.0.0.1' });
process.stdout.write(`SECOND ${second.port}\nPORT ${first.port}\n`);
