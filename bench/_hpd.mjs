// usage: node /tmp/hp/hp.mjs [prod|debug] [handle|fetch] [route...]
import { makeApp } from './servers/irms-app.mjs';
const mode = Deno.args[0] || 'prod';
const entry = Deno.args[1] || 'handle';
const routes = Deno.args.slice(2).length ? Deno.args.slice(2) : ['root', 'user', '404', 'echo'];
const app = makeApp(mode, { logSink: () => {} });
const BODY = '{"hello":"world","n":42,"list":[1,2,3]}';
const R = { root: ['GET', '/'], user: ['GET', '/users/42'], 404: ['GET', '/does-not-exist'], echo: ['POST', '/echo', BODY] };
const enc = new TextEncoder();
function src(m, t, body) {
  const h = { host: '127.0.0.1:8000', 'user-agent': 'wrk', accept: '*/*' };
  if (body) { h['content-type'] = 'application/json'; h['content-length'] = String(body.length); }
  return { method: m, target: t, scheme: 'http', fallbackHost: '', remoteAddress: '127.0.0.1', protocol: 'HTTP/1.1',
    header: (n) => h[n] ?? null, headers: () => Object.entries(h), body: () => null,
    readBody: body ? () => Promise.resolve(enc.encode(body)) : undefined };
}
async function one(r) {
  const [m, t, b] = R[r];
  if (entry === 'fetch') {
    const res = await app.fetch(new Request('http://127.0.0.1:8000' + t, b ? { method: m, body: b, headers: { 'content-type': 'application/json' } } : { method: m }));
    await res.arrayBuffer();
  } else {
    const h = await app.handle(src(m, t, b));
    h.terminate?.();
  }
}
for (const r of routes) {
  for (let i = 0; i < 20000; i++) await one(r);
  const res = [];
  for (let k = 0; k < 5; k++) {
    const N = 20000;
    const c0 = performance.now();
    for (let i = 0; i < N; i++) await one(r);
    await new Promise((x) => setImmediate(x));
    const c = performance.now() - c0;
    res.push(c * 1000 / N);
  }
  res.sort((a, b) => a - b);
  console.log(`${mode} ${entry} ${r}: ${res[2].toFixed(2)} µs/req (min ${res[0].toFixed(2)})`);
}
