// The Node host (src/runtime/node.ts) with pipelined requests and at shutdown, over raw sockets:
// how many pipelined requests are computed ahead of a client that does not read, which answers a
// shutdown still sends, and shutdown deadlines beyond setTimeout's range.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { serve } from '../../src/runtime/node.ts';
import { HttpResponse } from '../../src/http/response.ts';
import { deferred, get, sleep, start, stubApp, waitFor, within, type Handler } from '../support/node-host.ts';

/** A connected raw socket that records everything it receives (as Buffers) and when it closes. */
async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let closed = false;
  const closedPromise = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  socket.on('data', (d: Buffer) => chunks.push(d));
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  return {
    socket,
    closed: closedPromise,
    isClosed: () => closed,
    data: () => Buffer.concat(chunks),
  };
}

/** `n` pipelined GETs `/1`…`/n` after `first` (its target), the last one with `Connection: close` when asked. */
function pipeline(first: string, n: number, closeLast = true): string {
  let bytes = `GET ${first} HTTP/1.1\r\nHost: x\r\n\r\n`;
  for (let i = 1; i <= n; i++) bytes += `GET /${i} HTTP/1.1\r\nHost: x\r\n${closeLast && i === n ? 'Connection: close\r\n' : ''}\r\n`;
  return bytes;
}

/** Splits what one connection received into responses (status line, lower-cased headers, body); Content-Length framing only. */
function responses(data: Buffer): { status: string; headers: Map<string, string>; body: Buffer }[] {
  const out: { status: string; headers: Map<string, string>; body: Buffer }[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at, 'latin1');
    if (end === -1) throw new Error(`an incomplete response head at byte ${at}`);
    const [status, ...lines] = data.toString('latin1', at, end).split('\r\n');
    const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
    const length = Number(headers.get('content-length'));
    if (!Number.isInteger(length)) throw new Error(`a response without Content-Length: ${status}`);
    out.push({ status: status!, headers, body: data.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return out;
}

/**
 * The first response of each pipeline: larger than what the loopback socket buffers of a client that
 * does not read can hold (≈ 4 MB here), so that every later response waits behind it until the client
 * reads. Requests behind it are what the server may or may not compute meanwhile.
 */
const BLOCKING = Buffer.alloc(32 * 1024 * 1024, 97);
/** What the adapter may compute ahead per connection (listener.ts PIPELINE_DEPTH, counting the response being written). */
const DEPTH = 16;

const marked: Handler = (s) => (s.target === '/big' ? new HttpResponse(BLOCKING) : HttpResponse.text(`answer ${s.target}`));

describe('node adapter: pipelined requests', { timeout: 30_000 }, () => {
  test('regression: every pipelined request was computed while the client did not read (≈270 MB per connection with debug pages)', async () => {
    for (const sync of [false, true]) {
      const { server, seen } = await start(marked, {}, sync);
      const n = 499;
      const client = await connect(server.port);
      client.socket.pause();
      client.socket.write(pipeline('/big', n));
      await waitFor(() => seen.length >= 2, 2000, 'the first requests to be handled');
      await sleep(300);
      const whileNotReading = seen.length;
      assert.ok(whileNotReading <= DEPTH, `sync=${sync}: ${whileNotReading} of ${n + 1} requests handled while the client was not reading (bound ${DEPTH})`);
      await sleep(200);
      assert.equal(seen.length, whileNotReading, `sync=${sync}: nothing more is computed until the client reads`);

      client.socket.resume();
      await within(client.closed, 10_000, 'every answer and the close');
      const got = responses(client.data());
      assert.equal(got.length, n + 1, `sync=${sync}: every request answered`);
      assert.equal(got[0]!.body.length, BLOCKING.length);
      for (let i = 1; i <= n; i++) {
        assert.match(got[i]!.status, /^HTTP\/1\.1 200 /);
        assert.equal(got[i]!.body.toString(), `answer /${i}`, `sync=${sync}: response ${i} in request order`);
      }
      assert.deepEqual(
        seen.map((s) => s.target),
        ['/big', ...Array.from({ length: n }, (_, i) => `/${i + 1}`)],
        'handled once each, in request order',
      );
    }
  });

  test('regression: a client that pipelined requests and left: the waiting ones never run, nothing fails, the server still answers', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (r: unknown) => unhandled.push(r);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const sync of [false, true]) {
        const { server, seen, logs, terminated } = await start(marked, {}, sync);
        const client = await connect(server.port);
        client.socket.pause();
        client.socket.write(pipeline('/big', 499, false));
        await waitFor(() => seen.length >= 2, 2000, 'the first requests to be handled');
        await sleep(200);
        const started = seen.length;
        assert.ok(started <= DEPTH, `sync=${sync}: ${started} handled before the client left`);
        client.socket.destroy();
        await sleep(300);
        assert.equal(seen.length, started, `sync=${sync}: no waiting request ran after the client left`);
        // The requests that did run still get their kernel.terminate (as for any client that leaves).
        await waitFor(() => terminated.length === started, 2000, `terminate for the ${started} requests that ran`);
        assert.deepEqual(logs, [], `sync=${sync}: nothing reported`);
        const after = await get(server.port, '/after');
        assert.equal(after.body, 'answer /after');
      }
      await sleep(20);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('requests waiting for their turn stop the server from reading more of them, until their turn comes', async () => {
    // Without this backpressure the server would read (and make a request and a response object for)
    // everything the client writes, answered or not. The first answer here writes nothing while it
    // waits, so node:http's own backpressure (on data it has to write) never starts.
    const gate = deferred();
    const { server, seen } = await start(async (s) => {
      if (s.target === '/hold') await gate.promise;
      return HttpResponse.text(`answer ${s.target}`);
    });
    let parsed = 0;
    server.server.on('request', () => parsed++);
    const client = await connect(server.port);
    const n = 20_000; // ≈ 700 KB
    client.socket.write(pipeline('/hold', n));
    await waitFor(() => seen.length >= 2, 2000, 'the first requests to be handled');
    await sleep(500);
    assert.ok(seen.length <= DEPTH, `${seen.length} handled`);
    assert.ok(parsed < 10_000, `the server went on reading: ${parsed} of ${n + 1} requests parsed`);
    gate.resolve();
    await within(client.closed, 10_000, 'every answer');
    const got = responses(client.data());
    assert.equal(got.length, n + 1, 'reading resumed as the waiting requests were answered');
    assert.equal(got.at(-1)!.body.toString(), `answer /${n}`);
    assert.equal(parsed, n + 1);
  });

  test('a keep-alive client reading as it goes gets every pipelined answer, batch or not', async () => {
    for (const batch of [true, false]) {
      const { server, seen } = await start(async (s) => {
        if (Number(s.target.slice(1)) % 7 === 0) await sleep(1);
        return HttpResponse.text(`answer ${s.target}`);
      }, { batch });
      const client = await connect(server.port);
      const n = 300;
      client.socket.write(pipeline('/0', n));
      await within(client.closed, 5000, 'the answers');
      const got = responses(client.data());
      assert.deepEqual(
        got.map((r) => r.body.toString()),
        Array.from({ length: n + 1 }, (_, i) => `answer /${i}`),
        `batch=${batch}`,
      );
      assert.equal(seen.length, n + 1);
    }
  });
});

describe('node adapter: pipelined requests at shutdown', { timeout: 15_000 }, () => {
  test('regression: close() during a pipelined pair dropped the second answer although its controller ran', async () => {
    // The second request is answered before close() (its answer waits behind the slow one) or after.
    for (const fastMs of [0, 150]) {
      const { server, seen } = await start(async (s) => {
        await sleep(s.target === '/slow' ? 300 : fastMs);
        return HttpResponse.text(`done ${s.target}`);
      });
      const client = await connect(server.port);
      client.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
      await waitFor(() => seen.length === 2, 2000, 'both requests to be handled');
      await sleep(50);
      const t0 = Date.now();
      const closed = server.close(3000);
      await within(client.closed, 2000, `the connection to close (fast after ${fastMs} ms)`);
      const got = responses(client.data());
      assert.deepEqual(
        got.map((r) => r.body.toString()),
        ['done /slow', 'done /fast'],
        `fast after ${fastMs} ms: both answers`,
      );
      assert.notEqual(got[0]!.headers.get('connection'), 'close', 'the first answer does not announce a close it does not do');
      if (fastMs > 0) assert.equal(got[1]!.headers.get('connection'), 'close', 'the last answer closes the connection');
      await within(closed, 1000, 'close() to resolve');
      assert.ok(Date.now() - t0 < 1500, 'well before the deadline');
    }
  });

  test('regression: close() with requests waiting their turn: every started one is answered, the waiting ones are dropped', async () => {
    const { server, seen } = await start(async (s) => {
      if (s.target === '/slow') await sleep(300);
      return HttpResponse.text(`done ${s.target}`);
    });
    const client = await connect(server.port);
    client.socket.write(pipeline('/slow', 40, false));
    await waitFor(() => seen.length >= 2, 2000, 'the first requests to be handled');
    await sleep(50);
    const started = seen.length;
    assert.ok(started <= DEPTH && started < 41, `${started} started`);
    const closed = server.close(3000);
    await within(client.closed, 2000, 'the connection to close');
    const got = responses(client.data());
    assert.deepEqual(
      got.map((r) => r.body.toString()),
      seen.map((s) => `done ${s.target}`),
      'one answer per request handled, in order',
    );
    assert.equal(seen.length, started, 'nothing waiting was started after close()');
    await within(closed, 1000, 'close() to resolve');
  });
});

describe('node adapter: shutdown deadlines', { timeout: 15_000 }, () => {
  test('regression: close() with a deadline above 2^31-1 ms cut the in-flight request after 1 ms', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const { server, seen } = await start(async () => {
        await sleep(300);
        return HttpResponse.text('slow done');
      });
      const inflight = get(server.port, '/slow');
      await waitFor(() => seen.length === 1, 2000, 'the request to be handled');
      const closed = server.close(3_000_000_000);
      const res = await inflight;
      assert.equal(res.status, 200);
      assert.equal(res.body, 'slow done');
      await within(closed, 2000, 'close() to resolve');
      await sleep(10);
      assert.deepEqual(warnings.filter((w) => w.name === 'TimeoutOverflowWarning'), []);
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('regression: a shutdownDeadlineMs option above 2^31-1 ms cut the in-flight request after 1 ms', async () => {
    const { server, seen } = await start(
      async () => {
        await sleep(300);
        return HttpResponse.text('slow done');
      },
      { shutdownDeadlineMs: Number.MAX_SAFE_INTEGER },
    );
    const inflight = get(server.port, '/slow');
    await waitFor(() => seen.length === 1, 2000, 'the request to be handled');
    const closed = server.close();
    assert.equal((await inflight).body, 'slow done');
    await within(closed, 2000, 'close() to resolve');
  });

  test('a deadline that is no number of milliseconds ≥ 0 is refused with a RangeError', async () => {
    const { server } = await start(() => HttpResponse.text('ok'));
    for (const bad of [-1, Number.NaN, '100' as unknown as number]) {
      await assert.rejects(server.close(bad), RangeError, String(bad));
    }
    // Refused before anything changed: the server still serves, and closes normally.
    assert.equal((await get(server.port, '/')).body, 'ok');
    await within(server.close(1000), 2000, 'close()');
    for (const bad of [-5, Number.NaN]) {
      await assert.rejects(serve(stubApp(() => HttpResponse.text('x')).app, { port: 0, handleSignals: false, shutdownDeadlineMs: bad }), RangeError);
    }
  });
});
