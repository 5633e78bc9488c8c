// Hono app on @hono/node-server.
import { serve } from '@hono/node-server';
import { app } from './hono-app.mjs';
import { onShutdown, listenInfo } from './common.mjs';

const { port, hostname } = listenInfo();
const server = serve({ fetch: app.fetch, port, hostname }, (info) => console.log(`READY ${info.port}`));
onShutdown(() => server.close());
