// Hono on Deno.serve: the framework peer on Deno, the same app as bench/servers/hono.mjs runs on Node.
// Run: deno run -A bench/servers/hono-deno.mjs   (PORT, HOST from the environment)
import { app } from './hono-app.mjs';

const port = Number(Deno.env.get('PORT') || 3000);
const hostname = Deno.env.get('HOST') || '127.0.0.1';

Deno.serve({ port, hostname, onListen: ({ port }) => console.log(`READY ${port}`) }, app.fetch);
for (const sig of ['SIGTERM', 'SIGINT']) Deno.addSignalListener(sig, () => Deno.exit(0));
