// Raw node:http, hand-routed: the four bench routes written by hand (shared by node-http.mjs and
// node-batched.mjs). The 404 body is 'Not Found' unless BENCH_404_PAGE asks for one of irms-web's pages.
import { notFoundPage } from './page-404.mjs';

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'content-length': '2' };

const NOT_FOUND_HEADERS = { 'content-type': notFoundPage.contentType, 'content-length': String(Buffer.byteLength(notFoundPage.body)) };

export function handler(req, res) {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path === '/' && req.method === 'GET') {
    res.writeHead(200, TEXT);
    res.end('ok');
    return;
  }
  if (req.method === 'GET' && path.startsWith('/users/') && path.length > 7 && path.indexOf('/', 7) < 0) {
    const body = JSON.stringify({ id: decodeURIComponent(path.slice(7)) });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  if (path === '/echo' && req.method === 'POST') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body;
      try {
        body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        res.writeHead(400, TEXT);
        res.end('no');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    return;
  }
  res.writeHead(404, NOT_FOUND_HEADERS);
  res.end(notFoundPage.body);
}
