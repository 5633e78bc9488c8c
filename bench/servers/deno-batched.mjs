// deno-plain's hand-routed handler behind irms-web's denoServeHandler, which computes the responses of
// one event-loop turn together under load. The ceiling for irms-deno with the same scheduling; what
// separates it from deno-plain is the scheduling alone.  Run: deno run -A bench/servers/deno-batched.mjs
import { denoServeHandler } from '../../dist/index.js';
import { handler } from './plain-handler.mjs';

const port = Number(Deno.env.get('PORT') || 3000);
const hostname = Deno.env.get('HOST') || '127.0.0.1';

Deno.serve({ port, hostname, onListen: ({ port }) => console.log(`READY ${port}`) }, denoServeHandler({ fetch: handler }));
for (const sig of ['SIGTERM', 'SIGINT']) Deno.addSignalListener(sig, () => Deno.exit(0));
