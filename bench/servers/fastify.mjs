// Fastify 5, logger off.
import Fastify from 'fastify';
import { onShutdown, listenInfo } from './common.mjs';

const app = Fastify({ logger: false });
app.get('/', async (req, reply) => reply.type('text/plain; charset=utf-8').send('ok'));
app.get('/users/:id', async (req) => ({ id: req.params.id }));
app.post('/echo', async (req) => req.body);

const { port, hostname } = listenInfo();
await app.listen({ port, host: hostname });
console.log(`READY ${app.server.address().port}`);
onShutdown(() => app.close());
