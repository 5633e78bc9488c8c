// The irms-web Node adapter (dist/node.js serve()) with a free kernel: each route's answer is replayed
// from floor-responses.mjs after reading the request headers irms-web reads. Not a framework; the
// bound on what irms-prod can reach on Node.
import { HttpResponse } from '../../dist/index.js';
import { serve } from '../../dist/node.js';
import { answers, jsonHeaders, READ_HEADERS } from './floor-responses.mjs';
import { onShutdown, listenInfo } from './common.mjs';

const { port, hostname } = listenInfo();
const decoder = new TextDecoder();
const replay = (a, body = a.body) => ({ response: new HttpResponse(body, a.status, a.headers), terminate: null });

const app = {
  handle(source) {
    for (const name of READ_HEADERS) source.header(name);
    const target = source.target;
    if (source.method === 'GET' && target === '/') return replay(answers.root);
    if (source.method === 'GET' && target.startsWith('/users/') && target.indexOf('/', 7) < 0) {
      return replay(answers.user, JSON.stringify({ id: decodeURIComponent(target.slice(7)) }));
    }
    if (source.method === 'POST' && target === '/echo') {
      return source.readBody(1 << 20).then((bytes) => ({ response: new HttpResponse(JSON.stringify(JSON.parse(decoder.decode(bytes))), 200, jsonHeaders), terminate: null }));
    }
    source.header('referer');
    source.header('accept');
    return replay(answers.notFound);
  },
};

const s = await serve(app, { port, hostname, handleSignals: false });
console.log(`READY ${s.port}`);
onShutdown(() => s.close());
