// Streamed response bodies through the kernel and out through the hosts (app.fetch, the Node adapter):
// chunk types, bodies already read, a stream on a 204/304, and a controller's proxied `fetch()` (its
// connection's fields, and the framing of a body fetch decoded).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { serve } from '../../src/runtime/node.ts';
import { HttpResponse } from '../../src/http/response.ts';
import { createApp, listener } from '../../src/index.ts';
import { get, raw, servers, start, waitFor } from '../support/node-host.ts';

const enc = new TextEncoder();

describe('streamed responses: what Fetch refuses, the Node adapter refuses alike', { timeout: 10_000 }, () => {
  test('regression: a response stream chunk that is no Uint8Array was written by the Node adapter (a string as UTF-8) where Fetch fails the stream, and one as the first chunk got an empty reply instead of the adapter\'s 500', async () => {
    // What Fetch does (undici here; Deno likewise): the body stream fails on such a chunk.
    await assert.rejects(new Response(new ReadableStream({ start: (c) => { c.enqueue('text'); c.close(); } })).text(), TypeError);

    const cancelled: string[] = [];
    const chunks: Record<string, () => unknown> = { string: () => 'text', arraybuffer: () => enc.encode('bytes').buffer, number: () => 42, null: () => null };
    const { server, logs } = await start((s) => {
      const [, kind, when] = s.target.split('/');
      let step = 0;
      return HttpResponse.stream(
        new ReadableStream<Uint8Array>({
          async pull(c) {
            if (when === 'late' && step === 0) {
              step++;
              c.enqueue(enc.encode('first;'));
              // The head and the first chunk go out before the odd chunk comes.
              await new Promise((r) => setTimeout(r, 30));
              return;
            }
            if (step++ < 2) c.enqueue(chunks[kind]!() as Uint8Array);
            else c.close();
          },
          cancel: () => void cancelled.push(s.target),
        }),
      );
    });
    for (const kind of Object.keys(chunks)) {
      // At once: the head is still held, so the client gets the adapter's 500, as for any stream that fails at once.
      const early = await raw(server.port, `GET /${kind}/early HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.match(early.data, /^HTTP\/1\.1 500 /, `${kind} first: ${JSON.stringify(early.data)}`);
      assert.ok(early.data.endsWith('Internal Server Error'), kind);
      // After the head: the answer is cut (no final chunk), and the odd chunk never reaches the wire.
      const late = await raw(server.port, `GET /${kind}/late HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.ok(late.closed, kind);
      assert.match(late.data, /^HTTP\/1\.1 200 [^]*first;/, kind);
      assert.ok(!late.data.endsWith('0\r\n\r\n'), `${kind} after the head must not look complete: ${JSON.stringify(late.data)}`);
      assert.doesNotMatch(late.data, /text|bytes|42/, kind);
    }
    assert.equal(logs.filter((l) => l.startsWith('The response body stream failed') && l.includes('non-Uint8Array')).length, 8, logs.join('\n'));
    // The source is told to stop, once per answer.
    assert.equal(cancelled.length, 8, cancelled.join());
    assert.equal(new Set(cancelled).size, 8);
    assert.equal((await get(server.port, '/string/early')).status, 500, 'the server still answers');
  });

  test('regression: a body stream already read through a reader that let go of it was sent by the Node adapter (what was left, or an empty 200) where app.fetch and Deno answer 500', async () => {
    const partlyRead = async () => {
      const upstream = new Response(new ReadableStream<Uint8Array>({ start: (c) => { c.enqueue(enc.encode('first;')); c.enqueue(enc.encode('rest')); c.close(); } }));
      const reader = upstream.body!.getReader();
      await reader.read();
      reader.releaseLock();
      return upstream;
    };
    const app = createApp({
      env: 'prod',
      debug: false,
      logSink: () => {},
      environment: {},
      routes: [{ name: 'peeked', path: '/peeked', methods: ['GET'], controller: partlyRead }],
    });
    // Fetch refuses such a body, and so does the kernel where the controller returns it (bodyUsed): every host
    // answers the kernel's own 500 page.
    const viaFetch = await app.fetch(new Request('http://localhost/peeked'));
    assert.equal(viaFetch.status, 500);
    const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
    servers.push(server);
    const r = await get(server.port, '/peeked');
    assert.equal(r.status, 500, JSON.stringify(r));
    assert.equal(r.body, await viaFetch.text());
    assert.match(r.body, /The server returned a "500 Internal Server Error"/);
  });
});

describe('a stream on a response that carries no body', { timeout: 10_000 }, () => {
  test('regression: a streamed body on a response a late kernel.response listener made a 204 or 304 was dropped by app.fetch (and so on Deno and Bun) without being cancelled: its source (an upstream fetch, a file) stayed open', async () => {
    const cancelled: string[] = [];
    const app = createApp({
      env: 'prod',
      debug: false,
      logSink: () => {},
      environment: {},
      listeners: [
        {
          hook: 'kernel.response',
          // After the ResponseListener, which empties the body of a response that is a 204 or 304 by then.
          listener: listener<'kernel.response'>('App::lateStatus', 'sets the status last', (event) => {
            const status = Number(event.request.query.get('status'));
            if (status) event.response.status = status;
          }),
          placement: { priority: -1000 },
        },
      ],
      routes: [
        {
          name: 'feed',
          path: '/feed',
          methods: ['GET'],
          controller: (request) => HttpResponse.stream(new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(enc.encode('x')), cancel: () => void cancelled.push(`${request.query.get('via')} ${request.query.get('status')}`) })),
        },
      ],
    });
    for (const status of ['204', '304']) {
      const r = await app.fetch(new Request(`http://localhost/feed?via=fetch&status=${status}`));
      assert.equal(r.status, Number(status));
      assert.equal(r.body, null);
    }
    // The Node adapter cancels such a stream too (it sends no body for them either).
    const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
    servers.push(server);
    assert.equal((await get(server.port, '/feed?via=node&status=204')).status, 204);
    await waitFor(() => cancelled.length === 3, 2000, `the streams to be cancelled (${cancelled.join(', ')})`);
    assert.deepEqual(cancelled.sort(), ['fetch 204', 'fetch 304', 'node 204']);
  });
});

describe('a controller returning a proxied fetch() of a compressed upstream', { timeout: 10_000 }, () => {
  const text = 'hello world '.repeat(2000);
  const encoded: Record<string, Buffer> = { gzip: zlib.gzipSync(text), br: zlib.brotliCompressSync(text) };
  const upstream = http.createServer((req, res) => {
    if (req.url === '/hop') {
      // Chunked, with the connection's own fields and one that Connection names as hop-by-hop.
      res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8', connection: 'keep-alive, x-upstream-hop', 'keep-alive': 'timeout=99', 'x-upstream-hop': 'for the proxy only', 'x-end-to-end': 'kept' });
      res.write('hop ');
      setTimeout(() => res.end('by hop'), 10);
      return;
    }
    const coding = req.url!.slice(1);
    res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8', 'content-encoding': coding, 'content-length': encoded[coding]!.length });
    res.end(encoded[coding]);
  });
  const listening = new Promise<number>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve((upstream.address() as AddressInfo).port)));
  after(() => {
    upstream.closeAllConnections();
    upstream.close();
  });

  test('regression: a proxied upstream\'s Content-Encoding and Content-Length went out with the body fetch() had decoded (the Node adapter cut it at the compressed length, a 200 silently truncated; every host labelled plain text as gzip), and Fetch hosts passed on its Connection and Keep-Alive', async () => {
    const port = await listening;
    const prebuilt = zlib.gzipSync('prebuilt');
    const app = createApp({
      env: 'prod',
      debug: false,
      logSink: () => {},
      environment: {},
      routes: [
        { name: 'hop', path: '/hop', methods: ['GET'], controller: () => fetch(`http://127.0.0.1:${port}/hop`) },
        { name: 'proxy', path: '/proxy/:coding', methods: ['GET'], controller: (req) => fetch(`http://127.0.0.1:${port}/${String(req.attributes.get('coding'))}`) },
        // A Response the app built with bytes it compressed itself: its headers describe its body, and stay.
        {
          name: 'prebuilt',
          path: '/prebuilt',
          methods: ['GET'],
          controller: () => new Response(new Blob([prebuilt]).stream(), { headers: { 'content-encoding': 'gzip', 'content-length': String(prebuilt.length) } }),
        },
      ],
    });
    const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
    servers.push(server);
    for (const coding of ['gzip', 'br']) {
      // node:http does not decode: the client sees the bytes and headers as sent.
      const r = await get(server.port, `/proxy/${coding}`);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-encoding'], undefined, coding);
      assert.equal(r.headers['content-length'], undefined, coding);
      assert.equal(r.body, text, coding);
      const viaFetch = await app.fetch(new Request(`http://localhost/proxy/${coding}`));
      assert.equal(viaFetch.headers.get('content-encoding'), null, coding);
      assert.equal(viaFetch.headers.get('content-length'), null, coding);
      assert.equal(await viaFetch.text(), text, coding);
    }
    // The upstream connection's fields describe that connection, not this one (RFC 9110 §7.6.1).
    const hop = await app.fetch(new Request('http://localhost/hop'));
    assert.equal(await hop.text(), 'hop by hop');
    for (const name of ['connection', 'keep-alive', 'transfer-encoding', 'x-upstream-hop']) assert.equal(hop.headers.get(name), null, name);
    assert.equal(hop.headers.get('x-end-to-end'), 'kept');
    const hopOnNode = await get(server.port, '/hop');
    assert.equal(hopOnNode.body, 'hop by hop');
    assert.equal(hopOnNode.headers['x-upstream-hop'], undefined);
    assert.notEqual(hopOnNode.headers['keep-alive'], 'timeout=99');
    const own = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: server.port, path: '/prebuilt', agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
      }).on('error', reject);
    });
    assert.equal(own.headers['content-encoding'], 'gzip');
    assert.equal(own.headers['content-length'], String(prebuilt.length));
    assert.equal(zlib.gunzipSync(own.body).toString(), 'prebuilt');
  });
});

describe('a stream that fails after the head, through app.fetch (any Fetch host)', () => {
  test('regression: a streamed response failing mid-body through app.fetch was logged nowhere by irms-web (the Node adapter logs it on the request\'s logger)', async () => {
    const lines: string[] = [];
    let cancelled = 0;
    const app = createApp({
      env: 'prod',
      environment: {},
      logSink: (line) => lines.push(line),
      routes: [{ name: 'fails', path: '/fails', controller: () => {
        let step = 0;
        return HttpResponse.stream(new ReadableStream<Uint8Array>({
          pull(c) {
            if (step++ === 0) c.enqueue(enc.encode('first;'));
            else c.error(new Error('upstream went away'));
          },
          cancel: () => void cancelled++,
        }));
      } }],
    });
    const response = await app.fetch(new Request('http://localhost/fails?token=secret'));
    assert.equal(response.status, 200);
    await assert.rejects(response.text(), /upstream went away/, 'the reader still sees the failure');
    const failures = lines.filter((l) => l.includes('app.ERROR: The response body stream failed: Error: upstream went away'));
    assert.equal(failures.length, 1, lines.join('\n'));
    assert.match(failures[0]!, /"url":"\/fails\?token=\*\*\*","http_method":"GET"/);

    // A reader that stops early cancels the source, and nothing is logged for it.
    const early = await app.fetch(new Request('http://localhost/fails'));
    await early.body!.cancel('client went away');
    assert.equal(cancelled, 1);
    assert.equal(lines.length, 1);
  });
});
