// Raw node:http, hand-routed: the ceiling for anything served on Node.
import http from 'node:http';
import { handler } from './node-http-handler.mjs';
import { onShutdown, listenInfo } from './common.mjs';

const { port, hostname } = listenInfo();
const server = http.createServer(handler);

server.listen(port, hostname, () => console.log(`READY ${server.address().port}`));
onShutdown(() => server.close());
