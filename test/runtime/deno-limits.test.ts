// What the Deno handler and entry enforce where `Deno.serve` does not:
// the scheme, a body read's deadline, the request target's length, how much a stalled upload costs,
// and how the process ends. The unit part calls denoServeHandler as Deno does (it runs on Node too);
// the rest runs dist/deno.js over raw sockets.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { denoServeHandler } from '../../src/runtime/deno-batch.ts';
import { createApp, HttpResponse, denoConnectionInfo, fetchSource } from '../../src/index.ts';
import { startDenoEntry, type DenoFixture } from '../support/deno-fixture.ts';
import { within } from '../support/node-host.ts';
import { parseResponse, rawHttp, type RawResponse } from '../support/raw-http.ts';

const info = { remoteAddr: { hostname: '127.0.0.1' } };

/** An app that answers the scheme it was told, and echoes a POSTed body. */
function schemeApp() {
  return createApp({
    env: 'prod',
    environment: {},
    logSink: () => {},
    routes: [
      { name: 'scheme', path: '/scheme', controller: (request) => HttpResponse.json({ scheme: request.getScheme(), secure: request.isSecure(), uri: request.getUri() }) },
      { name: 'echo', path: '/echo', methods: ['POST'], controller: async (request) => HttpResponse.text(await request.text()) },
    ],
  });
}

/** A request body that sends `first` and then nothing, as a client that stalls mid-body. */
function stalledBody(first: string): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return new Promise<void>(() => {});
      sent = true;
      controller.enqueue(new TextEncoder().encode(first));
    },
  });
}

describe('deno adapter: what denoServeHandler enforces for Deno.serve', { timeout: 20_000 }, () => {
  test('regression: the scheme came from the request URL, which the client writes (`GET https://…` over plain HTTP was secure)', async () => {
    const app = schemeApp();
    const ask = async (url: string, options?: { scheme?: 'http' | 'https' }) =>
      (await (await denoServeHandler(app, { batch: false, ...options })(new Request(url), info)).json()) as { scheme: string; secure: boolean; uri: string };
    assert.deepEqual(await ask('https://localhost/scheme'), { scheme: 'http', secure: false, uri: 'http://localhost/scheme' });
    assert.deepEqual(await ask('https://localhost/scheme', { scheme: 'http' }), { scheme: 'http', secure: false, uri: 'http://localhost/scheme' });
    // A TLS server says so; then a client's `http://` target does not make it insecure either.
    assert.deepEqual(await ask('http://localhost/scheme', { scheme: 'https' }), { scheme: 'https', secure: true, uri: 'https://localhost/scheme' });
  });

  test('regression: a body read had no deadline on Deno; past requestTimeout the client gets Node\'s 408 with Connection: close', async () => {
    const handler = denoServeHandler(schemeApp(), { batch: false, requestTimeout: 300 });
    const started = Date.now();
    const request = new Request('http://localhost/echo', { method: 'POST', body: stalledBody('{"a":'), duplex: 'half' } as RequestInit);
    const response = await within(Promise.resolve(handler(request, info)), 5000, 'an answer to the stalled body');
    const elapsed = Date.now() - started;
    assert.equal(response.status, 408);
    assert.equal(response.headers.get('connection'), 'close');
    assert.equal(await response.text(), '');
    assert.ok(elapsed >= 290 && elapsed < 2000, `answered after ${elapsed} ms`);
    // A body that arrives in time is answered as usual.
    const echoed = await handler(new Request('http://localhost/echo', { method: 'POST', body: 'hello' }), info);
    assert.equal(await echoed.text(), 'hello');
  });

  test('regression: a requestTimeout past 24.8 days (Infinity) armed a timer every millisecond while a body was read', async () => {
    // Counts the timers armed while one body stalls; each is cleared at the end (the test would wait for it).
    const realSetTimeout = globalThis.setTimeout;
    const armed: ReturnType<typeof setTimeout>[] = [];
    const delays: number[] = [];
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    globalThis.setTimeout = ((callback: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      const timer = realSetTimeout(callback, ms);
      armed.push(timer);
      return timer;
    }) as typeof setTimeout;
    try {
      for (const requestTimeout of [Infinity, 2 ** 31, 3e9]) {
        delays.length = 0;
        const handler = denoServeHandler(schemeApp(), { batch: false, requestTimeout });
        const request = new Request('http://localhost/echo', { method: 'POST', body: stalledBody('{"a":'), duplex: 'half' } as RequestInit);
        // The body never comes: the answer stays pending, and only the deadline's timers are counted.
        void handler(request, info);
        await new Promise((resolve) => realSetTimeout(resolve, 200));
        assert.ok(delays.length <= 2, `requestTimeout ${requestTimeout}: ${delays.length} timers in 200 ms (${delays.slice(0, 3).join(', ')}…)`);
        assert.ok(delays.every((ms) => ms <= 2 ** 31 - 1), `requestTimeout ${requestTimeout}: delays ${delays.slice(0, 3).join(', ')}`);
      }
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings.filter((name) => name === 'TimeoutOverflowWarning'), []);
    } finally {
      globalThis.setTimeout = realSetTimeout;
      process.off('warning', onWarning);
      for (const timer of armed) clearTimeout(timer);
    }
  });

  test('regression: a request target over 16 KiB reached the app on Deno (Node refuses the head with 431)', async () => {
    let computed = 0;
    const app = { respond: () => (computed++, new Response('app')) };
    for (const batch of [true, false]) {
      const handler = denoServeHandler(app, { batch });
      const refused = await handler(new Request(`http://localhost/${'a'.repeat(16 * 1024)}`), info);
      assert.equal(refused.status, 431);
      assert.equal(refused.headers.get('connection'), 'close');
      assert.equal(await refused.text(), '');
      // A long target under the limit still reaches the app, as on Node.
      assert.equal(await (await handler(new Request(`http://localhost/${'a'.repeat(16_000)}`), info)).text(), 'app');
    }
    assert.equal(computed, 2);
  });

  test('regression: Deno read every body that declared a length within BODY_LIMIT with arrayBuffer(), which allocates the declared length up front', async () => {
    const readWith = async (declared: number, body: string) => {
      const request = new Request('http://localhost/echo', { method: 'POST', body, headers: { 'content-length': String(declared) } });
      let whole = 0;
      const arrayBuffer = request.arrayBuffer.bind(request);
      Object.defineProperty(request, 'arrayBuffer', { value: () => (whole++, arrayBuffer()) });
      const read = await fetchSource(request, denoConnectionInfo(info)).readBody!(1024 * 1024);
      return { whole, text: new TextDecoder().decode(read!) };
    };
    // The JSON echo's body is read in one call (the fast path)...
    const json = '{"hello":"world","n":42,"list":[1,2,3]}';
    assert.deepEqual(await readWith(json.length, json), { whole: 1, text: json });
    assert.equal((await readWith(64 * 1024, 'x'.repeat(64 * 1024))).whole, 1);
    // ...a larger declared length through the stream, which grows with what arrives.
    assert.deepEqual(await readWith(64 * 1024 + 1, 'x'.repeat(64 * 1024 + 1)), { whole: 0, text: 'x'.repeat(64 * 1024 + 1) });
  });
});

/** Connects and writes `bytes`; resolves with the first complete response (Deno may keep the connection open). */
function firstResponse(port: number, bytes: string, timeoutMs: number): Promise<{ response: RawResponse; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let raw = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no response within ${timeoutMs} ms: ${JSON.stringify(raw.toString('latin1'))}`));
    }, timeoutMs);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      raw = Buffer.concat([raw, chunk]);
      const end = raw.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(raw.subarray(0, end).toString('latin1'));
      if (end < 0 || !length || raw.length < end + 4 + Number(length[1])) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ response: parseResponse(raw, false), ms: Date.now() - started });
    });
  });
}

/** Resident memory of a process, MB (Linux). */
function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

describe('deno adapter: dist/deno.js where Deno.serve decides', { timeout: 60_000 }, () => {
  // Each test's servers and client sockets go when it ends (a stalled Deno keeps its memory otherwise).
  const started: DenoFixture[] = [];
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const fixture of started.splice(0)) fixture.child.kill('SIGKILL');
  });
  const entry = async (env: Record<string, string> = {}, fileLimit?: number) => {
    const fixture = await startDenoEntry(env, { fileLimit });
    started.push(fixture);
    return fixture;
  };

  test('regression: out of file descriptors, the Deno server stopped listening and the process exited 0 (a supervisor saw a clean stop)', async () => {
    const server = await entry({}, 256);
    for (let i = 0; i < 400; i++) {
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => {});
      sockets.push(socket);
    }
    const timeout = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 15_000).unref());
    const exit = await Promise.race([server.exited, timeout]);
    assert.deepEqual(exit, { code: 1, signal: null }, server.output());
    assert.match(server.output(), /app\.CRITICAL: The server stopped accepting connections: .*Too many open files/);
  });

  test('regression: a stalled request body kept its request waiting forever on Deno; after REQUEST_TIMEOUT_MS it gets 408 with Connection: close, as on Node', async () => {
    const server = await entry({ REQUEST_TIMEOUT_MS: '1000' });
    const head = (length: number) => `POST /missing HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"`;
    // A body read through the stream (over 64 KiB; chunked bodies too), 2 bytes sent. A small body read
    // whole has no deadline, as headers have none on Deno (README, "Decisions").
    for (const length of [500_000]) {
      const { response, ms } = await firstResponse(server.port, head(length), 10_000);
      assert.equal(response.status, 408, `Content-Length ${length}`);
      assert.match(response.headers['connection'] ?? '', /close/);
      assert.equal(response.body, '');
      assert.ok(ms >= 950 && ms < 5000, `Content-Length ${length}: answered after ${ms} ms`);
    }
  });

  test('regression: each stalled upload cost Deno its whole declared length (arrayBuffer() allocates it before the body arrives)', async () => {
    const server = await entry({ APP_ENV: 'prod' });
    const pid = server.child.pid!;
    const before = rssMb(pid);
    // 200 clients declare the default BODY_LIMIT (1 MiB) and send 10 bytes: 200 MB if allocated up front.
    for (let i = 0; i < 200; i++) {
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.write('POST /missing HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n0123456789'),
      );
      socket.on('error', () => {});
      sockets.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const grown = rssMb(pid) - before;
    assert.ok(grown < 100, `RSS grew by ${grown.toFixed(0)} MB for 200 stalled uploads of 10 bytes`);
    const alive = await rawHttp(server.port, 'localhost', { method: 'GET', target: '/missing' });
    assert.equal(alive.status, 404);
  });

  test('regression: over plain HTTP an `https://` absolute-form target made the Deno request secure', async () => {
    const server = await entry();
    const missing = await rawHttp(server.port, 'localhost', { method: 'GET', target: 'https://localhost/missing' });
    assert.equal(decodeURIComponent(missing.headers['x-debug-exception'] ?? ''), 'No route found for "GET http://localhost/missing"');
    const profiler = await rawHttp(server.port, 'localhost', { method: 'GET', target: 'https://localhost/_profiler' });
    assert.equal(profiler.status, 301);
    assert.equal(profiler.headers['location'], 'http://localhost/_profiler/');
  });

  test('regression: a request target over 16 KiB got a debug page ten times its size on Deno; Node answers 431', async () => {
    const server = await entry();
    const refused = await rawHttp(server.port, 'localhost', { method: 'GET', target: `/${'a'.repeat(17_000)}` });
    assert.equal(refused.status, 431);
    assert.match(refused.headers['connection'] ?? '', /close/);
    assert.equal(refused.body, '');
  });

  test('regression: SIGTERM right after the listening line killed Deno by the signal instead of draining and exiting 0', async () => {
    // A race (the signal against Deno's listener) that the old order lost most times: three starts.
    for (let i = 0; i < 3; i++) {
      const server = await entry();
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
    }
  });
});
