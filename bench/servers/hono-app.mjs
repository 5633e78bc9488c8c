// The Hono bench app (the same four routes as every other server).
import { Hono } from 'hono';

export const app = new Hono();
app.get('/', (c) => c.text('ok'));
app.get('/users/:id', (c) => c.json({ id: c.req.param('id') }));
app.post('/echo', async (c) => c.json(await c.req.json()));
