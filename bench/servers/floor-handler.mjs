// A Fetch handler with a free kernel: reads the request headers irms-web reads and answers with
// irms-web's exact production responses (floor-responses.mjs), built as `HttpResponse.toFetch()`
// builds them (`new Response(body)`, then each header set). Not a framework: the bound on what
// irms-web can reach where it must hand back a native Response (Deno.serve, app.fetch on Deno).
// Served by floor-deno.mjs; the `floor` subject of the in-process bench (bench/lib/inproc.mjs).
import { answers, jsonHeaders, READ_HEADERS } from './floor-responses.mjs';

function respond(status, headers, body) {
  const response = new Response(body, status === 200 ? undefined : { status });
  const target = response.headers;
  for (const [name, value] of headers) target.set(name, value);
  return response;
}

export function floorHandler(req) {
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
