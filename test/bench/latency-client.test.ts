// bench/latency-client.mjs, the bench's second load generator: what it counts must be what the server
// answered, whatever way the responses are cut into reads.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLIENT = fileURLToPath(new URL('../../bench/latency-client.mjs', import.meta.url));

interface Report {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  statuses: Record<string, number>;
}

function runClient(url: string, ...args: string[]): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, url, '--connections', '4', '--seconds', '0.5', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`client exited ${code}: ${err}`));
      resolve(JSON.parse(out.trim()) as Report);
    });
  });
}

const servers: (http.Server | net.Server)[] = [];
after(() => servers.forEach((s) => s.close()));

async function serve(handler: http.RequestListener): Promise<{ url: string; seen: () => number }> {
  let seen = 0;
  const server = http.createServer((req, res) => {
    seen++;
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen: () => seen };
}

const PAGE = Buffer.alloc(60_000, 'x');

describe('bench latency client', { timeout: 20_000 }, () => {
  test('counts every answer, short or long, and times them', async () => {
    const { url, seen } = await serve((req, res) => {
      const body = req.url === '/page' ? PAGE : Buffer.from('ok');
      res.writeHead(req.url === '/page' ? 404 : 200, { 'content-length': body.length });
      res.end(body);
    });
    for (const path of ['/', '/page']) {
      const before = seen();
      const report = await runClient(url + path);
      assert.equal(report.errors, 0, path);
      assert.ok(report.requests > 0, path);
      assert.deepEqual(report.statuses, { [path === '/' ? '200' : '404']: report.requests }, path);
      assert.equal(seen() - before, report.requests, `${path}: every request the server saw was answered and counted`);
      assert.ok(report.p50 > 0 && report.p50 <= report.p99 && report.p99 <= report.max, path);
    }
  });

  test('a head and body arriving in separate reads, the body cut at odd places', async () => {
    const { url, seen } = await serve((_req, res) => {
      const body = Buffer.alloc(10_000, 'y');
      res.writeHead(200, { 'content-length': body.length });
      res.flushHeaders();
      setTimeout(() => {
        res.write(body.subarray(0, 1));
        setTimeout(() => res.end(body.subarray(1)), 2);
      }, 2);
    });
    const report = await runClient(url);
    assert.equal(report.errors, 0);
    assert.ok(report.requests > 0);
    assert.equal(seen(), report.requests);
    assert.ok(report.p50 >= 2, `each response took its two pauses (p50 ${report.p50} ms)`);
  });

  test('a response head cut across two reads', async () => {
    let seen = 0;
    const server = net.createServer((socket) => {
      socket.setNoDelay(true);
      socket.on('data', () => {
        seen++;
        socket.write('HTTP/1.1 200 OK\r\nContent-Le');
        setTimeout(() => socket.write('ngth: 2\r\n\r\nok'), 2);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const report = await runClient(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`);
    assert.equal(report.errors, 0);
    assert.ok(report.requests > 0);
    assert.equal(seen, report.requests);
    assert.deepEqual(report.statuses, { '200': report.requests });
  });

  test('a server that stops answering: its connections end as errors and the client still reports', async () => {
    let answered = 0;
    const { url } = await serve((_req, res) => {
      if (answered++ >= 8) return; // never answered
      res.writeHead(200, { 'content-length': 2 });
      res.end('ok');
    });
    const report = await runClient(url, '--grace-ms', '300');
    assert.equal(report.requests, 8);
    assert.equal(report.errors, 4, 'each of the 4 connections waited past the grace period');
  });

  test('POST sends its body; a response without Content-Length is an error, not a wrong count', async () => {
    const bodies: string[] = [];
    const { url } = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        bodies.push(body);
        if (req.url === '/chunked') {
          res.writeHead(200);
          res.write('no ');
          res.end('length');
          return;
        }
        res.writeHead(200, { 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    const echo = await runClient(`${url}/echo`, '--method', 'POST', '--body', '{"n":42}');
    assert.equal(echo.errors, 0);
    assert.ok(echo.requests > 0);
    assert.ok(bodies.every((b) => b === '{"n":42}'));
    const chunked = await runClient(`${url}/chunked`);
    assert.equal(chunked.requests, 0);
    assert.equal(chunked.errors, 4, 'one error per connection, each then closed');
  });
});
