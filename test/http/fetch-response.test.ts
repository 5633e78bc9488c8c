import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toFetchResponse } from '../../src/http/fetch-response.ts';
import { HttpResponse } from '../../src/http/response.ts';
import { createApp, type AnyListenerRegistration } from '../../src/app/create-app.ts';
import { listener } from '../../src/kernel/hooks.ts';

// On Node, app.fetch answers with a deferred Response (src/http/fetch-response.ts). Whatever a caller
// does with it must give what the real undici Response from toFetch() gives.

type Make = () => HttpResponse;

const cases: Record<string, Make> = {
  'text/plain': () => HttpResponse.text('ok'),
  json: () => HttpResponse.json({ id: '42', list: [1, 2] }),
  'html, 404, two cookies': () => {
    const r = HttpResponse.html('<p>gone</p>', 404, { 'x-robots-tag': 'noindex' });
    r.headers.setCookie('a', '1');
    r.headers.setCookie('b', '2');
    return r;
  },
  'bytes without a type': () => new HttpResponse(new Uint8Array([104, 105, 0xff]), 201),
  'empty string': () => new HttpResponse('', 200, { 'cache-control': 'no-cache, private' }),
  'null body': () => new HttpResponse(null, 200),
  '204 with a body the status forbids': () => new HttpResponse('ignored', 204, { 'x-a': '1' }),
  '304': () => new HttpResponse('ignored', 304, { etag: '"x"' }),
  'leading BOM': () => new HttpResponse('\uFEFFhi', 200),
  'lone surrogate': () => new HttpResponse('a\uD800b', 200),
  'untyped string with "content-type" as a header value': () => new HttpResponse('ok', 200, { vary: 'content-type' }),
  'redirect 301': () => HttpResponse.redirect('/next', 301),
  '599': () => new HttpResponse('x', 599),
  '205 without a body': () => new HttpResponse('', 205),
  'Latin-1 header value, surrounding whitespace': () => new HttpResponse('ok', 200, { 'x-name': 'café', 'x-padded': ' a\t' }),
};

type Read = (r: Response) => Promise<unknown>;
const reads: Record<string, Read> = {
  text: (r) => r.text(),
  arrayBuffer: async (r) => [...new Uint8Array(await r.arrayBuffer())],
  bytes: async (r) => [...(await (r as Response & { bytes(): Promise<Uint8Array> }).bytes())],
  blob: async (r) => {
    const b = await r.blob();
    return [b.type, b.size, await b.text()];
  },
  'body stream': async (r) => {
    if (r.body === null) return null;
    const chunks: number[] = [];
    for await (const c of r.body as unknown as AsyncIterable<Uint8Array>) chunks.push(...c);
    return chunks;
  },
  json: (r) => r.json().then((v) => ({ ok: v }), (e: Error) => ({ error: e.constructor.name })),
};

async function observe(response: Response, read: Read) {
  const head = {
    isResponse: response instanceof Response,
    tag: Object.prototype.toString.call(response),
    status: response.status,
    ok: response.ok,
    statusText: response.statusText,
    type: response.type,
    url: response.url,
    redirected: response.redirected,
    headers: [...response.headers],
    cookies: response.headers.getSetCookie(),
    bodyUsedBefore: response.bodyUsed,
  };
  const value = await read(response);
  const used = response.bodyUsed;
  const again = await response.text().then((t) => ({ text: t }), (e: Error) => ({ error: e.constructor.name }));
  const clone = (() => {
    try {
      response.clone();
      return 'cloned';
    } catch (e) {
      return (e as Error).constructor.name;
    }
  })();
  return { head, value, used, again, clone };
}

for (const [name, make] of Object.entries(cases)) {
  for (const [how, read] of Object.entries(reads)) {
    test(`deferred response = toFetch(): ${name}, read with ${how}`, async () => {
      const deferred = toFetchResponse(make());
      const real = make().toFetch();
      assert.deepEqual(await observe(deferred, read), await observe(real, read));
    });
  }
}

test('on Node, app.fetch returns a deferred Response that is still an instanceof Response', async () => {
  const app = createApp({ env: 'prod', debug: false, logSink: () => {} });
  const response = await app.fetch(new Request('http://localhost/nothing-here'));
  assert.ok(response instanceof Response);
  assert.notEqual(Object.getPrototypeOf(response), Response.prototype, 'deferred, not undici’s own object');
  assert.equal(response.status, 404);
  assert.match(await response.text(), /Not Found/);
});

test('what undici refuses (a header name that is no token, a value beyond Latin-1) throws the same TypeError as toFetch()', () => {
  const refused: Make[] = [
    () => new HttpResponse('x', 200, { 'bad name': 'v' }),
    () => new HttpResponse('x', 200, { 'x-name': '日本' }),
  ];
  for (const make of refused) {
    const expected = (() => {
      try {
        make().toFetch();
      } catch (e) {
        return e as Error;
      }
      assert.fail('toFetch() accepted it');
    })();
    assert.throws(() => toFetchResponse(make()), (e: Error) => e instanceof TypeError && e.message === expected.message);
  }
});

test('a 205 with a body (which undici refuses) becomes the 205 without it, as a 204 does', async () => {
  for (const response of [new HttpResponse('x', 205).toFetch(), toFetchResponse(new HttpResponse('x', 205))]) {
    assert.equal(response.status, 205);
    assert.equal(await response.text(), '');
  }
});

test('a status Fetch refuses throws the same RangeError as toFetch()', () => {
  assert.throws(() => new HttpResponse('x', 101).toFetch(), RangeError);
  assert.throws(() => toFetchResponse(new HttpResponse('x', 101)), RangeError);
  assert.throws(() => toFetchResponse(new HttpResponse('x', 600)), RangeError);
});

test('a streamed body comes back as undici’s own Response', async () => {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode('streamed'));
      c.close();
    },
  });
  const response = toFetchResponse(HttpResponse.stream(stream, 200, { 'content-type': 'text/plain' }));
  assert.equal(Object.getPrototypeOf(response), Response.prototype);
  assert.equal(await response.text(), 'streamed');
});

test('headers is one object for the response’s life: changes to it reach clones and the body stream’s Response', async () => {
  const response = toFetchResponse(HttpResponse.text('hello'));
  const headers = response.headers;
  headers.set('x-added', 'yes');
  assert.equal(response.headers, headers);
  const early = response.clone();
  assert.equal(early.headers.get('x-added'), 'yes');
  assert.ok(response.body, 'builds the real Response');
  assert.equal(response.headers, headers, 'the same object after the real Response exists');
  headers.set('x-later', '1');
  const late = response.clone();
  assert.equal(late.headers.get('x-later'), '1');
  assert.equal(await late.text(), 'hello');
  assert.equal(await early.text(), 'hello');
  assert.equal(await response.text(), 'hello');
});

test('a body read through text() is read for the stream too: body is locked and bodyUsed stays true', async () => {
  const response = toFetchResponse(HttpResponse.text('once'));
  assert.equal(await response.text(), 'once');
  assert.equal(response.bodyUsed, true);
  assert.equal(response.body?.locked, true);
  await assert.rejects(response.arrayBuffer(), TypeError);
});

test('bytes read from a deferred response are a copy: writing to them leaves the response and its clones alone', async () => {
  const source = new HttpResponse(new Uint8Array([1, 2, 3]), 200);
  const response = toFetchResponse(source);
  const clone = response.clone();
  const bytes = new Uint8Array(await response.arrayBuffer());
  bytes[0] = 9;
  assert.deepEqual([...new Uint8Array(await clone.arrayBuffer())], [1, 2, 3]);
  assert.deepEqual([...(source.body as Uint8Array)], [1, 2, 3]);
});

/** A production app whose `GET /` answers `ok`, with one listener of the test's. */
function okApp(registration: AnyListenerRegistration) {
  return createApp({
    env: 'prod',
    debug: false,
    logSink: () => {},
    routes: [{ name: 'home', path: '/', methods: ['GET'], controller: () => HttpResponse.text('ok') }],
    listeners: [registration],
  });
}

test('a kernel.terminate listener that changes the response after app.fetch returned does not change what the caller got', async () => {
  const app = okApp({
    hook: 'kernel.terminate',
    listener: listener<'kernel.terminate'>('test::late', 'changes a sent response', (event) => {
      event.response.headers.set('x-late', 'changed');
      event.response.status = 500;
    }),
  });
  const response = await app.fetch(new Request('http://localhost/'));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('x-late'), null);
  assert.equal(await response.text(), 'ok');
});

test('formData() and other members the deferred response does not answer itself are asked of the real Response', async () => {
  const form = toFetchResponse(new HttpResponse('a=1&b=two', 200, { 'content-type': 'application/x-www-form-urlencoded' }));
  const data = await form.formData();
  assert.equal(data.get('b'), 'two');
  assert.equal(form.bodyUsed, true);
});

test('when a host has replaced the global Response (as @hono/node-server does), app.fetch answers with that class', async () => {
  const original = globalThis.Response;
  class LightweightResponse extends original {}
  globalThis.Response = LightweightResponse;
  try {
    const response = toFetchResponse(HttpResponse.text('light'));
    assert.equal(Object.getPrototypeOf(response), LightweightResponse.prototype);
    assert.equal(await response.text(), 'light');
  } finally {
    globalThis.Response = original;
  }
  assert.notEqual(Object.getPrototypeOf(toFetchResponse(HttpResponse.text('x'))), Response.prototype, 'deferred again once the global is back');
});

test('bytes the kernel changes after app.fetch returned do not change the response, as with undici’s copy', async () => {
  const bytes = new Uint8Array([1, 2, 3]);
  const deferred = toFetchResponse(new HttpResponse(bytes, 200));
  const real = new HttpResponse(bytes, 200).toFetch();
  bytes[0] = 9;
  assert.deepEqual([...new Uint8Array(await deferred.arrayBuffer())], [...new Uint8Array(await real.arrayBuffer())]);
});

test('a JS-level Node host writes the deferred response like a real one (@hono/node-server, globals left alone)', async () => {
  const { getRequestListener } = await import('@hono/node-server');
  const http = await import('node:http');
  const app = createApp({
    env: 'prod',
    debug: false,
    logSink: () => {},
    routes: [
      {
        name: 'home',
        path: '/',
        methods: ['GET'],
        controller: () => {
          const r = HttpResponse.json({ a: 1 });
          r.headers.setCookie('x', '1');
          r.headers.setCookie('y', '2');
          return r;
        },
      },
    ],
  });
  const server = http.createServer(getRequestListener((request: Request) => app.fetch(request), { overrideGlobalObjects: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    const ok = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('content-type'), 'application/json');
    assert.deepEqual(ok.headers.getSetCookie().map((c) => c.split(';')[0]), ['x=1', 'y=2']);
    assert.equal(await ok.text(), '{"a":1}');
    const missing = await fetch(`http://127.0.0.1:${port}/missing`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /^<!DOCTYPE html>/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('regression: a Buffer body read with arrayBuffer() handed out the whole shared Buffer pool; it is a copy of its own bytes, as undici gives', async () => {
  // Buffer.from of a short string is a view of Node's shared 8 KB pool, which holds other bytes of the process.
  const other = Buffer.from('other-request-secret');
  const body = Buffer.from('abc');
  const deferred = toFetchResponse(new HttpResponse(body, 200));
  const real = new HttpResponse(body, 200).toFetch();
  body[0] = 0x7a;
  const bytes = await deferred.arrayBuffer();
  assert.equal(bytes.byteLength, 3, 'only the body, not the pool it was cut from');
  assert.deepEqual([...new Uint8Array(bytes)], [...new Uint8Array(await real.arrayBuffer())], 'the bytes as they were when app.fetch returned');
  assert.ok(!Buffer.from(bytes).includes(other));
  const again = await toFetchResponse(new HttpResponse(Buffer.from('xyz'), 200)).bytes();
  assert.equal(again.buffer.byteLength, 3);
  assert.equal(Object.getPrototypeOf(again), Uint8Array.prototype, 'a Uint8Array, as undici’s bytes()');
});

test('regression: a status that is no integer (200.5, NaN) set on the response came back from app.fetch as it was, or truncated to 200; it gets the Node adapter\'s 500', async () => {
  for (const status of [200.5, Number.NaN, 404.9]) {
    const app = okApp({
      hook: 'kernel.response',
      listener: listener<'kernel.response'>('test::status', 'sets a computed status', (event) => {
        event.response.status = status;
      }),
    });
    const response = await app.fetch(new Request('http://localhost/'));
    assert.equal(response.status, 500, String(status));
    const built = HttpResponse.text('ok');
    built.status = status;
    assert.throws(() => built.toFetch(), /The HTTP status code ".*" is not valid\./, String(status));
  }
});
