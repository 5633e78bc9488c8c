// The Deno.serve handler (src/runtime/deno-batch.ts): what it hands back to Deno, in which mode, and
// that every request gets its own answer. The unit part calls the handler as Deno does, turn by turn
// (its scheduler runs on Node too); the last test runs a real Deno server under concurrent load.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { denoServeHandler } from '../../src/runtime/deno-batch.ts';
import { keepAliveClient } from '../support/keep-alive.ts';
import { startDenoFixture } from '../support/deno-fixture.ts';

/** Resolves after every callback already queued for the current turn's check phase. */
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const info = { remoteAddr: { hostname: '127.0.0.1' } };

/** An app whose respond answers with the request's path (or fails, or answers later, for some paths). */
function fakeApp() {
  const computed: string[] = [];
  const app = {
    respond(request: Request, connection?: { remoteAddress?: string }): Response | Promise<Response> {
      const path = new URL(request.url).pathname;
      computed.push(path);
      if (path.startsWith('/fail')) throw new Error(`respond failed on ${path}`);
      const response = new Response(`answer to ${path} from ${connection?.remoteAddress}`);
      return path.startsWith('/later') ? Promise.resolve().then(() => response) : response;
    },
  };
  return { app, computed };
}

/** Calls the handler `count` times in the current turn, as Deno does for the requests it has ready. */
function deliver(handler: ReturnType<typeof denoServeHandler>, paths: string[]) {
  return paths.map((path) => {
    try {
      return { path, value: handler(new Request(`http://localhost${path}`), info) };
    } catch (err) {
      return { path, thrown: err };
    }
  });
}

const bodyOf = async (value: unknown) => (await (value as Promise<Response> | Response)).text();

describe('deno adapter: the Deno.serve handler batches under load', { timeout: 10_000 }, () => {
  test('one request per turn is answered inside the call with the Response itself', async () => {
    const { app } = fakeApp();
    const handler = denoServeHandler(app);
    for (let turn = 0; turn < 50; turn++) {
      const [r] = deliver(handler, [`/one/${turn}`]);
      assert.ok(r!.value instanceof Response, `turn ${turn}: a promise was returned`);
      assert.equal(await bodyOf(r!.value), `answer to /one/${turn} from 127.0.0.1`);
      await endOfTurn();
    }
    assert.equal(handler.batching, false);
  });

  test('many requests per turn: pending promises, computed together at the end of the turn, each with its own answer', async () => {
    const { app, computed } = fakeApp();
    const handler = denoServeHandler(app);
    let batchedTurns = 0;
    for (let turn = 0; turn < 20; turn++) {
      const paths = Array.from({ length: 20 }, (_, i) => `/t${turn}/r${i}`);
      const before = computed.length;
      const results = deliver(handler, paths);
      if (computed.length === before) {
        batchedTurns++;
        assert.ok(results.every((r) => r.value instanceof Promise), `turn ${turn}`);
      }
      await endOfTurn();
      assert.deepEqual(computed.slice(-20), paths, `turn ${turn}: not computed in arrival order`);
      assert.deepEqual(await Promise.all(results.map((r) => bodyOf(r.value))), paths.map((p) => `answer to ${p} from 127.0.0.1`));
    }
    assert.equal(handler.batching, true);
    assert.ok(batchedTurns >= 15, `only ${batchedTurns} of 20 turns were batched`);
  });

  test('regression: an object with only a fetch handler (the bench\'s deno-batched, user code) failed every request once the handler called app.respond', async () => {
    const plain = { fetch: (request: Request) => Promise.resolve(new Response(`plain ${new URL(request.url).pathname}`)) };
    for (const batch of [true, false]) {
      const handler = denoServeHandler(plain, { batch });
      const [r] = deliver(handler, ['/p']);
      assert.equal(r!.thrown, undefined, String(r!.thrown));
      assert.equal(await bodyOf(r!.value), 'plain /p');
      await endOfTurn();
    }
  });

  test('a fetch that throws: thrown inside the call at low load, a rejected promise in a batch, and the rest of the batch answered', async () => {
    const { app } = fakeApp();
    const handler = denoServeHandler(app);
    const [alone] = deliver(handler, ['/fail/alone']);
    assert.match(String(alone!.thrown), /respond failed on \/fail\/alone/);
    for (let turn = 0; turn < 10; turn++) {
      deliver(handler, Array.from({ length: 20 }, (_, i) => `/warm/${turn}/${i}`));
      await endOfTurn();
    }
    assert.equal(handler.batching, true);
    const results = deliver(handler, ['/a', '/fail/batched', '/later/b', '/c']);
    assert.ok(results.every((r) => r.value instanceof Promise), 'the requests were not batched');
    const settled = await Promise.allSettled(results.map((r) => bodyOf(r.value)));
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason))),
      ['answer to /a from 127.0.0.1', 'Error: respond failed on /fail/batched', 'answer to /later/b from 127.0.0.1', 'answer to /c from 127.0.0.1'],
    );
  });

  test('batch: false answers every request inside the call, whatever the load', async () => {
    const { app } = fakeApp();
    const handler = denoServeHandler(app, { batch: false });
    for (let turn = 0; turn < 10; turn++) {
      const results = deliver(handler, Array.from({ length: 20 }, (_, i) => `/n/${turn}/${i}`));
      assert.ok(results.every((r) => r.value instanceof Response));
      await endOfTurn();
    }
    assert.equal(handler.batching, false);
  });
});

describe('deno adapter: denoServeHandler options', () => {
  const refused = (options: unknown, message: string) =>
    assert.throws(() => denoServeHandler(fakeApp().app, options as Parameters<typeof denoServeHandler>[1]), (error: unknown) => error instanceof TypeError && error.message === message, JSON.stringify(options));

  test('regression: denoServeHandler options were not checked: { scheme: "https:" } served a TLS server as http (http:// redirects, no Secure cookies) and a misspelt option was ignored, without a word', () => {
    refused({ scheme: 'https:' }, 'The denoServeHandler option "scheme" must be "http" or "https", got "https:".');
    refused({ scheme: 'HTTPS' }, 'The denoServeHandler option "scheme" must be "http" or "https", got "HTTPS".');
    refused({ requestTimout: 5000 }, 'Unknown denoServeHandler option "requestTimout" (did you mean "requestTimeout"?).');
    refused({ requestTimeoutMs: 5000 }, 'Unknown denoServeHandler option "requestTimeoutMs" (did you mean "requestTimeout"?).');
    refused({ batch: 'no' }, 'The denoServeHandler option "batch" must be true or false, got "no".');
    refused(null, 'denoServeHandler() expects an options object, got null.');
    // What is right, or given as undefined, still builds a handler.
    assert.equal(typeof denoServeHandler(fakeApp().app, { scheme: 'https', batch: false, requestTimeout: 0 }), 'function');
    assert.equal(typeof denoServeHandler(fakeApp().app, { scheme: undefined, batch: undefined, requestTimeout: undefined }), 'function');
  });
});

describe('deno adapter: batching on a real Deno server', { timeout: 60_000 }, () => {
  let child: ChildProcess | undefined;
  after(() => void child?.kill('SIGKILL'));

  test('under concurrent keep-alive load Deno batches, and every client gets its own answer', async () => {
    const fixture = await startDenoFixture('test/runtime/fixtures/deno-batch-server.mjs');
    child = fixture.child;
    const port = fixture.port;
    const client = keepAliveClient(port);
    const ask = (path: string) => client.get(path);
    let batched = 0;
    try {
      for (let round = 0; round < 40 && !(batched > 0 && round >= 10); round++) {
        const paths = Array.from({ length: 100 }, (_, i) => `/r${round}/c${i}?q=${i}`);
        const answers = await Promise.all(paths.map(ask));
        for (let i = 0; i < paths.length; i++) {
          const m = /^answer to GET (\S+) batching=(true|false)$/.exec(answers[i]!.body);
          assert.equal(answers[i]!.status, 200);
          assert.equal(m?.[1], paths[i], `round ${round}: ${paths[i]} got "${answers[i]!.body}"`);
          if (m?.[2] === 'true') batched++;
        }
      }
    } finally {
      client.close();
    }
    assert.ok(batched > 0, 'Deno never switched to batching under 100 concurrent requests');
  });
});
