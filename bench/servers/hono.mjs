// Hono app on @hono/node-server.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { onShutdown, listenInfo } from './common.mjs';

export const app = new Hono();
app.get('/', (c) => c.text('ok'));
app.get('/users/:id', (c) => c.json({ id: c.req.param('id') }));
app.post('/echo', async (c) => c.json(await c.req.json()));

const { port, hostname } = listenInfo();
const server = serve({ fetch: app.fetch, port, hostname }, (info) => console.log(`READY ${info.port}`));
onShutdown(() => server.close());
