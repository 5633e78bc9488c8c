// irms-web, prod mode, on the Node adapter (dist/node.js).
import { makeApp } from './irms-app.mjs';
import { serve } from '../../dist/node.js';
import { onShutdown, listenInfo } from './common.mjs';

const { port, hostname } = listenInfo();
const app = makeApp('prod');
const s = await serve(app, { port, hostname, handleSignals: false });
console.log(`READY ${s.port} ${app.benchNote}`);
onShutdown(() => s.close());
