// irms-web's Deno handler (denoServeHandler, batching under load as irms-deno does) with a free kernel
// (floor-handler.mjs: irms-web's exact answers, no kernel). Not a framework; the bound on what
// irms-deno can reach.  Run: deno run -A bench/servers/floor-deno.mjs
import { denoServeHandler } from '../../dist/index.js';
import { floorHandler } from './floor-handler.mjs';

const port = Number(Deno.env.get('PORT') || 3000);
const hostname = Deno.env.get('HOST') || '127.0.0.1';

Deno.serve({ port, hostname, onListen: ({ port }) => console.log(`READY ${port}`) }, denoServeHandler({ fetch: floorHandler }));
for (const sig of ['SIGTERM', 'SIGINT']) Deno.addSignalListener(sig, () => Deno.exit(0));
