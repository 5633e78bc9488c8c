// Optional peer: the plain fetch handler on @hono/node-server — the cost of the Fetch bridge alone.
import { serve } from '@hono/node-server';
import { handler } from './plain-handler.mjs';
import { onShutdown, listenInfo } from './common.mjs';

const { port, hostname } = listenInfo();
const server = serve({ fetch: handler, port, hostname }, (info) => console.log(`READY ${info.port}`));
onShutdown(() => server.close());
