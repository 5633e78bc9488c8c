// serve()'s connection endings: SIGTERM next to a SIGTERM handler of the application's own (a child
// process), and a client that stops reading its answer.
import assert from 'node:assert/strict';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { HttpResponse } from '../../src/http/response.ts';
import { childServer, get, raw, sleep, start, waitFor, within } from '../support/node-host.ts';

const fixture = fileURLToPath(new URL('./node/fixture-own-sigterm.ts', import.meta.url));

const child = () => childServer(fixture);
const twoServers = fileURLToPath(new URL('./node/fixture-two-servers.ts', import.meta.url));

/** A request the child answers after 600 ms: its status and body, or how it was cut. */
const slowRequest = (port: number): Promise<string> =>
  get(port, '/slow?ms=600').then(
    (r) => `${r.status} ${r.body}`,
    (e: Error) => `cut: ${e.message}`,
  );

describe('serve(): SIGTERM', { timeout: 20_000 }, () => {
  test('regression: one SIGTERM, with a handler of the application\'s own that calls close() first, cut the in-flight requests at once ("SIGTERM again") and never exited', async () => {
    const c = child();
    try {
      const port = await within(c.port, 8000, 'the child server to start');
      const inflight = slowRequest(port);
      await sleep(150);
      c.proc.kill('SIGTERM');
      assert.equal(await inflight, '200 done /slow?ms=600', c.stderr());
      assert.equal((await within(c.exit, 3000, 'the child to exit')).code, 0, c.stderr());
      assert.doesNotMatch(c.stderr(), /again/);
    } finally {
      c.proc.kill('SIGKILL');
    }
  });
});

describe('serve(): SIGTERM with two servers in one process', { timeout: 20_000 }, () => {
  test('regression: a process serving two ports exited as soon as the idle one had drained on SIGTERM, cutting the other\'s in-flight request', async () => {
    const c = childServer(twoServers);
    let out = '';
    c.proc.stdout.on('data', (d) => (out += d));
    try {
      await within(c.port, 8000, 'the child servers to start');
      const second = Number(/SECOND (\d+)/.exec(out)?.[1]);
      const inflight = slowRequest(second);
      await sleep(150);
      c.proc.kill('SIGTERM');
      assert.equal(await inflight, '200 done /slow?ms=600', c.stderr());
      assert.equal((await within(c.exit, 3000, 'the child to exit')).code, 0, c.stderr());
      assert.equal(c.stderr().match(/irms-web: stopped/g)?.length, 1, c.stderr());
    } finally {
      c.proc.kill('SIGKILL');
    }
  });
});

describe('serve(): a client that stops reading its answer', { timeout: 20_000 }, () => {
  test('regression: a client that stopped reading kept its connection and the answer held for it for ever (no timeout ran once the request was in); now closed after sendTimeout', async () => {
    const big = 'x'.repeat(8 * 1024 * 1024);
    const enc = new TextEncoder();
    const { server, terminated } = await start(async (source) => {
      if (source.target === '/big') return HttpResponse.text(big);
      if (source.target === '/slow') return sleep(900).then(() => HttpResponse.text('slow answer'));
      // An event stream with a pause longer than sendTimeout between its events.
      let sent = 0;
      const events = new ReadableStream<Uint8Array>({
        async pull(c) {
          if (sent === 2) return c.close();
          if (sent++ === 1) await sleep(900);
          c.enqueue(enc.encode(`event ${sent}\n`));
        },
      });
      return new HttpResponse(events, 200, { 'content-type': 'text/event-stream' });
    }, { sendTimeout: 300 });
    const connections = () => new Promise<number>((resolve) => server.server.getConnections((_err, n) => resolve(n)));
    const stalled = net.connect(server.port, '127.0.0.1');
    stalled.on('error', () => {});
    stalled.pause();
    stalled.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    try {
      // Its answer is abandoned (kernel.terminate runs) and its connection closed on the server's side.
      await waitFor(() => terminated.includes('/big'), 3000, 'the server to give up the answer of a client that does not read');
      assert.equal(await connections(), 0);
    } finally {
      stalled.destroy();
    }
    // What has nothing to write for a while is no stalled client: a long computation, a quiet event stream.
    const slow = await get(server.port, '/slow');
    assert.equal(slow.body, 'slow answer');
    const quiet = await get(server.port, '/events');
    assert.equal(quiet.body, 'event 1\nevent 2\n');
  });

  test('sendTimeout leaves the keep-alive wait and a shorter headersTimeout as they were', async () => {
    const { server } = await start(() => HttpResponse.text('ok'), { sendTimeout: 1500, headersTimeout: 400, requestTimeout: 1000, keepAliveTimeout: 300, connectionsCheckingInterval: 100 });
    const partial = await raw(server.port, 'GET / HTTP/1.1\r\nHost: x\r\n', 3000);
    assert.match(partial.data, /^HTTP\/1\.1 408 /, JSON.stringify(partial.data));
    const idle = await raw(server.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', 3000);
    assert.ok(idle.closed && idle.data.endsWith('\r\n\r\nok'), `closed by the keep-alive wait: ${JSON.stringify(idle.data)}`);
  });

  test('sendTimeout must be an integer number of milliseconds', async () => {
    for (const sendTimeout of [-1, 1.5, '60000', 2 ** 31]) {
      await assert.rejects(start(() => HttpResponse.text('x'), { sendTimeout: sendTimeout as number }), /sendTimeout/);
    }
  });
});
