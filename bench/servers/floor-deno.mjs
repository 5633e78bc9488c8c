// irms-web's Deno handler (denoServeHandler, batching under load as irms-deno does) with a free kernel:
// reads the request headers irms-web reads and answers with irms-web's exact responses
// (floor-responses.mjs), headers set as `toFetch()` sets them. Not a framework; the bound on what
// irms-deno can reach.  Run: deno run -A bench/servers/floor-deno.mjs
import { denoServeHandler } from '../../dist/index.js';
import { answers, jsonHeaders, READ_HEADERS } from './floor-responses.mjs';

const port = Number(Deno.env.get('PORT') || 3000);
const hostname = Deno.env.get('HOST') || '127.0.0.1';

function respond(status, headers, body) {
  const response = new Response(body, status === 200 ? undefined : { status });
  const target = response.headers;
  for (const [name, value] of headers) target.set(name, value);
  return response;
}

function handler(req) {
  const headers = req.headers;
  for (const name of READ_HEADERS) headers.get(name);
  const url = req.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  const q = url.indexOf('?', start);
  const path = q < 0 ? url.slice(start) : url.slice(start, q);
  if (req.method === 'GET' && path === '/') return respond(200, answers.root.headers, answers.root.body);
  if (req.method === 'GET' && path.startsWith('/users/') && path.indexOf('/', 7) < 0) {
    return respond(200, answers.user.headers, JSON.stringify({ id: decodeURIComponent(path.slice(7)) }));
  }
  if (req.method === 'POST' && path === '/echo') return req.json().then((data) => respond(200, jsonHeaders, JSON.stringify(data)));
  headers.get('referer');
  headers.get('accept');
  return respond(answers.notFound.status, answers.notFound.headers, answers.notFound.body);
}

Deno.serve({ port, hostname, onListen: ({ port }) => console.log(`READY ${port}`) }, denoServeHandler({ fetch: handler }));
for (const sig of ['SIGTERM', 'SIGINT']) Deno.addSignalListener(sig, () => Deno.exit(0));
