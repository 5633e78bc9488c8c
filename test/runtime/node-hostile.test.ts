// The Node adapter against broken applications and hostile clients, over real sockets (raw bytes):
// every case ends in an answer or a closed connection, never a crash, an unhandled rejection or a hang.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { HttpResponse } from '../../src/http/response.ts';
import type { RequestSource } from '../../src/http/source.ts';
import { serve, type NodeApp } from '../../src/runtime/node.ts';
import { raw, servers, start, waitFor } from '../support/node-host.ts';

/** A NodeApp whose handle() is `handle`, its log lines recorded. */
async function startApp(handle: NodeApp['handle'], batch: boolean): Promise<{ port: number; logs: string[] }> {
  const logs: string[] = [];
  const app: NodeApp = { config: {}, handle, log: (_level, message) => void logs.push(message) };
  const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false, batch });
  servers.push(server);
  return { port: server.port, logs };
}

const GET = 'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';

describe('node adapter: failures that cannot be printed', { timeout: 10_000 }, () => {
  test('regression: an app failing with a value that cannot be printed (no toString) got no answer and an unhandled rejection', async () => {
    for (const batch of [false, true]) {
      const rejecting = await startApp(() => Promise.reject(Object.create(null)), batch);
      const a = await raw(rejecting.port, GET);
      assert.match(a.data, /^HTTP\/1\.1 500 /, `rejected, batch ${batch}: ${a.data}`);
      assert.ok(rejecting.logs.some((l) => l === 'Unhandled error while handling a request: an unprintable value ([object Object])'), rejecting.logs.join('\n'));

      const throwing = await startApp(() => {
        throw Object.create(null);
      }, batch);
      const b = await raw(throwing.port, GET);
      assert.match(b.data, /^HTTP\/1\.1 500 /, `thrown, batch ${batch}: ${b.data}`);
    }
  });

  test('regression: a kernel.terminate failing with a value that cannot be printed was an uncaught exception', async () => {
    const { port, logs } = await startApp(
      () => ({
        response: HttpResponse.text('ok'),
        terminate: () => {
          throw Object.create(null);
        },
      }),
      false,
    );
    const { data } = await raw(port, GET);
    assert.match(data, /^HTTP\/1\.1 200 /);
    await waitFor(() => logs.some((l) => l.startsWith('kernel.terminate failed: an unprintable value')), 2000, 'the terminate failure to be logged');
  });
});

describe('node adapter: requests asking for an upgrade', { timeout: 10_000 }, () => {
  test('regression: a request pipelined behind an upgrade request was dropped and the connection left open until the keep-alive timeout', async () => {
    const { server, seen } = await start((source) => HttpResponse.text(`at ${source.target}`), { keepAliveTimeout: 4000 });
    const started = Date.now();
    const { data, closed } = await raw(
      server.port,
      'GET /ws HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nGET /next HTTP/1.1\r\nHost: localhost\r\n\r\n',
      2000,
    );
    // Node never parses /next (it took those bytes for the new protocol's): the client learns it at once.
    assert.deepEqual(seen.map((s) => s.target), ['/ws']);
    assert.match(data, /^HTTP\/1\.1 200 [^]*\r\nConnection: close\r\n[^]*at \/ws$/);
    assert.ok(closed && Date.now() - started < 1500, `closed: ${closed}`);
  });

  test('an upgrade request with a body closes the connection too; an Upgrade header without Connection: upgrade keeps it', async () => {
    const { server, seen } = await start((source) => HttpResponse.text(`at ${source.target}`));
    const body = await raw(
      server.port,
      'POST /a HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: foo\r\nContent-Length: 2\r\n\r\nhiGET /dropped HTTP/1.1\r\nHost: localhost\r\n\r\n',
    );
    assert.ok(body.closed);
    assert.match(body.data, /\r\nConnection: close\r\n[^]*at \/a$/);
    const kept = await raw(
      server.port,
      'GET /b HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\nUpgrade: foo\r\n\r\nGET /c HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    assert.equal(kept.data.match(/HTTP\/1\.1 200 /g)?.length, 2, kept.data);
    assert.ok(kept.data.endsWith('at /c'), kept.data);
    assert.deepEqual(seen.map((s) => s.target), ['/a', '/b', '/c']);
  });
});

describe('node adapter: header counts', { timeout: 10_000 }, () => {
  test('regression: header lines past the 2,000th were dropped: a Content-Length there framed a body the kernel never saw, a second Host there escaped the 400', async () => {
    const { server } = await start(async (source) => {
      const body = await source.readBody!(1000);
      return HttpResponse.text(`host=[${source.header('host')}] body=[${new TextDecoder().decode(body!)}]`);
    });
    const filler = Array.from({ length: 2000 }, (_, i) => `a${i}: b\r\n`).join('');
    const post = await raw(server.port, `POST / HTTP/1.1\r\nHost: localhost\r\n${filler}Content-Length: 5\r\nConnection: close\r\n\r\nhello`);
    assert.ok(post.data.endsWith('host=[localhost] body=[hello]'), post.data.slice(-200));
    const chunked = await raw(server.port, `POST / HTTP/1.1\r\nHost: localhost\r\n${filler}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n`);
    assert.ok(chunked.data.endsWith('body=[hello]'), chunked.data.slice(-200));
    // Both Hosts reach the kernel, joined, as two Hosts anywhere else do (its Host check answers 400).
    const hosts = await raw(server.port, `GET / HTTP/1.1\r\nHost: localhost\r\n${filler}Host: evil.example\r\nConnection: close\r\n\r\n`);
    assert.ok(hosts.data.endsWith('host=[localhost, evil.example] body=[]'), hosts.data.slice(-200));
  });
});

describe('node adapter: a malformed request pipelined behind others', { timeout: 10_000 }, () => {
  const slowly = (source: RequestSource) =>
    new Promise<HttpResponse>((resolve) => setTimeout(() => resolve(HttpResponse.text(`answer to ${source.target}`)), source.target === '/slow' ? 150 : 0));

  test('regression: the 400 for a malformed request pipelined behind one being computed went out first, read as that request\'s answer, which was lost', async () => {
    for (const batch of [false, true]) {
      const { server, seen } = await start(slowly, { batch });
      if (batch) {
        // Many requests in one read: the server batches the next ones (node-batch.ts).
        await raw(server.port, 'GET /warm HTTP/1.1\r\nHost: localhost\r\n\r\n'.repeat(40), 500);
        assert.equal((server.server.listeners('request')[0] as { batching?: boolean }).batching, true);
      }
      const { data, closed } = await raw(server.port, 'GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\nGET /next HTTP/1.1\r\nHost: localhost\r\n\r\nGARBAGE\r\n\r\n', 3000);
      assert.ok(closed, `batch ${batch}: the connection closes`);
      assert.doesNotMatch(data, / 400 /, `batch ${batch}`);
      assert.match(data, /^HTTP\/1\.1 200 [^]*answer to \/slowHTTP\/1\.1 200 [^]*\r\nConnection: close\r\n[^]*answer to \/next$/, `batch ${batch}: ${data}`);
      assert.deepEqual(seen.map((s) => s.target).filter((t) => t !== '/warm'), ['/slow', '/next']);
    }
  });

  test('regression: the 405 for a CONNECT pipelined behind a request being computed went out first, read as that request\'s answer, which was lost', async () => {
    for (const batch of [false, true]) {
      const { server, seen, terminated } = await start(slowly, { batch });
      if (batch) {
        await raw(server.port, 'GET /warm HTTP/1.1\r\nHost: localhost\r\n\r\n'.repeat(40), 500);
        assert.equal((server.server.listeners('request')[0] as { batching?: boolean }).batching, true);
      }
      const { data, closed } = await raw(server.port, 'GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\nGET /next HTTP/1.1\r\nHost: localhost\r\n\r\nCONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n', 3000);
      assert.ok(closed, `batch ${batch}: the connection closes`);
      assert.doesNotMatch(data, / 405 /, `batch ${batch}`);
      assert.match(data, /^HTTP\/1\.1 200 [^]*answer to \/slowHTTP\/1\.1 200 [^]*\r\nConnection: close\r\n[^]*answer to \/next$/, `batch ${batch}: ${data}`);
      assert.deepEqual(seen.map((s) => s.target).filter((t) => t !== '/warm'), ['/slow', '/next']);
      await waitFor(() => terminated.includes('/next'), 1000, 'kernel.terminate of the answered requests');
    }
    // With nothing under way, the CONNECT still gets its 405 at once.
    const { server } = await start(slowly);
    const alone = await raw(server.port, 'CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n', 3000);
    assert.match(alone.data, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
  });

  test('a body slower than the request timeout still gets its 408 at once, alone or behind an answer being computed', async () => {
    const { server } = await start(async (source) => {
      if (source.target === '/slow') return slowly(source);
      const body = await source.readBody!(1000);
      return HttpResponse.text(`read ${body?.byteLength}`);
    }, { requestTimeout: 400, headersTimeout: 400 });
    const alone = await raw(server.port, 'POST /up HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n0123456789', 3000);
    assert.ok(alone.closed);
    assert.match(alone.data, /^HTTP\/1\.1 408 /);
    const behind = await raw(server.port, 'GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\nGET /next HTTP/1.1\r\nHost: loc', 3000);
    assert.ok(behind.closed);
    assert.match(behind.data, /^HTTP\/1\.1 200 [^]*answer to \/slow/);
  });

  test('a malformed request with nothing before it still gets its 400', async () => {
    const { server } = await start(slowly);
    const alone = await raw(server.port, 'GARBAGE\r\n\r\n');
    assert.match(alone.data, /^HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n/);
    // After an answer already written, the 400 follows it.
    const after = await raw(server.port, 'GET /a HTTP/1.1\r\nHost: localhost\r\n\r\n', 300);
    assert.match(after.data, /answer to \/a$/);
  });
});

describe('node adapter: framing headers of an application of its own', { timeout: 10_000 }, () => {
  test('regression: a NodeApp writing Content-Length and Transfer-Encoding capitalised got them sent beside the adapter\'s length (two lengths and chunked on one response)', async () => {
    const enc = new TextEncoder();
    const lines = (pairs: [string, string][]) => ({ entries: () => pairs });
    const { port } = await startApp((source) => {
      if (source.target === '/fixed') {
        const headers = lines([['Content-Length', '100'], ['Transfer-Encoding', 'chunked'], ['Connection', 'keep-alive'], ['X-Kept', 'Yes']]);
        return { response: { status: 200, body: 'hello', headers }, terminate: null };
      }
      if (source.target === '/stream') {
        const body = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(enc.encode('abcdefg')), c.close()) });
        return { response: { status: 200, body, headers: lines([['Content-Length', '3'], ['content-length', '7']]) }, terminate: null };
      }
      return { response: HttpResponse.text('next'), terminate: null };
    }, false);
    const next = 'GET /next HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';
    const fixed = await raw(port, `GET /fixed HTTP/1.1\r\nHost: localhost\r\n\r\n${next}`);
    assert.equal(fixed.data.match(/\r\ncontent-length: /gi)?.length, 2, `one length per response: ${JSON.stringify(fixed.data)}`);
    assert.doesNotMatch(fixed.data, /transfer-encoding/i);
    assert.match(fixed.data, /^HTTP\/1\.1 200 OK\r\n(?:[^\r]+\r\n)*\r\nhelloHTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nnext$/, JSON.stringify(fixed.data));
    assert.match(fixed.data, /\r\ncontent-length: 5\r\n/);
    assert.match(fixed.data, /\r\nX-Kept: Yes\r\n/, 'other headers keep their spelling');
    const stream = await raw(port, `GET /stream HTTP/1.1\r\nHost: localhost\r\n\r\n${next}`);
    assert.equal(stream.data.match(/\r\ncontent-length: /gi)?.length, 2, `one length per response: ${JSON.stringify(stream.data)}`);
    assert.match(stream.data, /\r\nContent-Length: 3\r\n[^]*\r\n\r\nabcHTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nnext$/, JSON.stringify(stream.data));
  });
});

describe('node adapter: framing HTTP/1.1 refuses', { timeout: 10_000 }, () => {
  test('regression: `GET *` reached the kernel as the path "*" and a Transfer-Encoding not ending in chunked was read to the connection\'s end, where hyper, nginx and Apache answer 400 and close (RFC 9112 §3.2.4, §6.3)', async () => {
    for (const batch of [false, true]) {
      const { server, seen } = await start((s) => HttpResponse.text(`seen ${s.method} ${s.target}`), { batch });
      const port = server.port;
      for (const request of [
        'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
        'HEAD * HTTP/1.1\r\nHost: x\r\n\r\n',
        'POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc',
        'POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\nabc',
      ]) {
        const answer = await raw(port, request);
        assert.match(answer.data, /^HTTP\/1\.1 400 Bad Request\r\n/, `${JSON.stringify(request)}, batch ${batch}: ${answer.data}`);
        assert.match(answer.data, /\r\nConnection: close\r\n/i);
        assert.ok(answer.closed, 'the connection is closed');
      }
      assert.deepEqual(seen.map((s) => s.target), [], 'none reached the application');
      // What HTTP allows still does.
      const options = await raw(port, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.match(options.data, /^HTTP\/1\.1 200 [^]*seen OPTIONS \*$/);
      const chunked = await raw(port, 'POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, Chunked\r\nConnection: close\r\n\r\n0\r\n\r\n');
      assert.match(chunked.data, /^HTTP\/1\.1 200 [^]*seen POST \/echo$/);
    }
  });
});
