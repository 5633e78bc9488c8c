// A plain hand-routed fetch handler (no framework): served by deno-plain.mjs (Deno.serve) and
// fetch-node.mjs (@hono/node-server), and the `plain` subject of the in-process benches.
// The 404 body is 'Not Found' unless BENCH_404_PAGE asks for one of irms-web's pages (page-404.mjs).
import { notFoundPage } from './page-404.mjs';

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };
const NOT_FOUND = { 'content-type': notFoundPage.contentType };

export async function handler(req) {
  const url = req.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  const q = url.indexOf('?', start);
  const path = q < 0 ? url.slice(start) : url.slice(start, q);
  if (path === '/' && req.method === 'GET') return new Response('ok', { headers: TEXT });
  if (req.method === 'GET' && path.startsWith('/users/') && path.length > 7 && path.indexOf('/', 7) < 0) {
    return Response.json({ id: decodeURIComponent(path.slice(7)) });
  }
  if (path === '/echo' && req.method === 'POST') return Response.json(await req.json());
  return new Response(notFoundPage.body, { status: 404, headers: NOT_FOUND });
}
