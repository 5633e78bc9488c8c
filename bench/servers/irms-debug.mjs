// irms-web, debug mode (every request profiled), on the Node adapter (dist/node.js). BENCH_IRMS_BATCH=0:
// without batching under load (serve's `batch: false`).
import { makeApp } from './irms-app.mjs';
import { serve } from '../../dist/node.js';
import { onShutdown, listenInfo } from './common.mjs';

const { port, hostname } = listenInfo();
const app = makeApp('debug');
const s = await serve(app, { port, hostname, handleSignals: false, batch: process.env.BENCH_IRMS_BATCH !== '0' });
console.log(`READY ${s.port} ${app.benchNote}`);
onShutdown(() => s.close());
