// irms-web, prod mode, on Deno.serve as dist/deno.js runs it: denoServeHandler (app.fetch with the
// connection info, batched under load). BENCH_IRMS_BATCH=0: batch: false (the irms-deno-direct server).
// Run: deno run -A bench/servers/irms-deno.mjs   (PORT, HOST from the environment)
import { makeApp } from './irms-app.mjs';
import { denoServeHandler } from '../../dist/index.js';

const port = Number(Deno.env.get('PORT') || 3000);
const hostname = Deno.env.get('HOST') || '127.0.0.1';
const app = makeApp('prod');

Deno.serve({ port, hostname, onListen: ({ port }) => console.log(`READY ${port} ${app.benchNote}`) }, denoServeHandler(app, { batch: Deno.env.get('BENCH_IRMS_BATCH') !== '0' }));
for (const sig of ['SIGTERM', 'SIGINT']) Deno.addSignalListener(sig, () => Deno.exit(0));
