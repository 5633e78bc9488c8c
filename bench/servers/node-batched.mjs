// Raw node:http with irms-web's scheduling: the same hand-routed handler behind batchUnderLoad (dist/node.js),
// which computes the responses of one event-loop turn together under load. The ceiling for irms-prod with
// the same scheduling; what separates it from node-http is the scheduling alone.
import http from 'node:http';
import { batchUnderLoad } from '../../dist/node.js';
import { handler } from './node-http-handler.mjs';
import { onShutdown, listenInfo } from './common.mjs';

const { port, hostname } = listenInfo();
const server = http.createServer(batchUnderLoad(handler, (err) => console.error(err)));

server.listen(port, hostname, () => console.log(`READY ${server.address().port}`));
onShutdown(() => server.close());
