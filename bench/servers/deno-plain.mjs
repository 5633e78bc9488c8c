// A plain hand-routed fetch handler on Deno.serve: the ceiling on Deno.
// Run: deno run -A bench/servers/deno-plain.mjs   (PORT, HOST from the environment)
import { handler } from './plain-handler.mjs';

const port = Number(Deno.env.get('PORT') || 3000);
const hostname = Deno.env.get('HOST') || '127.0.0.1';

Deno.serve({ port, hostname, onListen: ({ port }) => console.log(`READY ${port}`) }, handler);
for (const sig of ['SIGTERM', 'SIGINT']) Deno.addSignalListener(sig, () => Deno.exit(0));
