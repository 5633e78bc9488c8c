// irms-web, prod mode, on Deno.serve (as dist/deno.js does): app.fetch with the connection info.
// Run: deno run -A bench/servers/irms-deno.mjs   (PORT, HOST from the environment)
import { makeApp } from './irms-app.mjs';
import { denoConnectionInfo } from '../../dist/index.js';

const port = Number(Deno.env.get('PORT') || 3000);
const hostname = Deno.env.get('HOST') || '127.0.0.1';
const app = makeApp('prod');

const server = Deno.serve({ port, hostname, onListen: ({ port }) => console.log(`READY ${port} ${app.benchNote}`) }, (req, info) =>
  app.fetch(req, denoConnectionInfo(info)),
);
for (const sig of ['SIGTERM', 'SIGINT']) Deno.addSignalListener(sig, () => Deno.exit(0));
