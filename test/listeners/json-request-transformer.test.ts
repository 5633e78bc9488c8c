import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { nestingDepth } from '../../src/http/json-decode.ts';
import { records, send, testApp } from '../pipeline/harness.ts';

let lastParams: Record<string, unknown> | null = null;
const routes: RouteDefinition[] = [
  {
    name: 'echo',
    path: '/echo',
    controller: (request) => {
      lastParams = request.request.all();
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(lastParams)) out[k] = v instanceof File ? { file: v.name, size: v.size } : v;
      return HttpResponse.json({ method: request.method, params: out, query: request.query.all() });
    },
  },
];

function post(app: ReturnType<typeof testApp>['app'], body: BodyInit | null, contentType: string | null, path = '/echo', extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra };
  if (contentType !== null) headers['content-type'] = contentType;
  return send(app, path, { method: 'POST', headers, body });
}

test('a JSON object replaces the body parameters; the query string is untouched', async () => {
  const { app } = testApp({ routes });
  const r = await post(app, JSON.stringify({ a: 1, nested: { b: [1, 2] } }), 'application/json', '/echo?q=1');
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { method: 'POST', params: { a: 1, nested: { b: [1, 2] } }, query: { q: '1' } });
});

test('a JSON array gives keys 0, 1, ...; {} and [] empty the parameters', async () => {
  const { app } = testApp({ routes });
  assert.deepEqual((await (await post(app, '["x", {"y": 2}]', 'application/json')).json()).params, { 0: 'x', 1: { y: 2 } });
  assert.deepEqual((await (await post(app, '{}', 'application/json')).json()).params, {});
  assert.deepEqual((await (await post(app, '[]', 'application/json')).json()).params, {});
});

test('application/x-json and parameters after ";" are JSON too', async () => {
  const { app } = testApp({ routes });
  for (const type of ['application/x-json', 'application/json; charset=utf-8', 'application/json ; charset=UTF-8']) {
    const r = await post(app, '{"k":"v"}', type);
    assert.deepEqual((await r.json()).params, { k: 'v' }, type);
  }
});

test('other content types are not decoded as JSON', async () => {
  const { app } = testApp({ routes });
  // Symfony compares the JSON media types case-sensitively: `Application/JSON` is not JSON there either.
  for (const type of ['text/plain', 'application/ld+json', 'application/vnd.api+json', 'text/json', 'Application/JSON', null]) {
    const r = await post(app, '{"member_id":"1"}', type);
    assert.equal(r.status, 200, String(type));
    assert.deepEqual((await r.json()).params, {}, String(type));
  }
});

test('null, true, false, an empty body and "0" leave the parameters untouched', async () => {
  const { app } = testApp({ routes });
  for (const body of ['null', 'true', 'false', '', '0']) {
    const r = await post(app, body, 'application/json');
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.deepEqual((await r.json()).params, {}, JSON.stringify(body));
  }
});

test('invalid JSON, numbers, strings, whitespace, bad UTF-8 and depth > 512 → plain 400 before routing', async () => {
  const { app, lines } = testApp({ routes });
  const bodies: BodyInit[] = ['{bad', '123', '1.5', '"a string"', '   ', '{"a":1}x', '['.repeat(513) + ']'.repeat(513), '['.repeat(10000) + ']'.repeat(10000), new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])];
  for (const body of bodies) {
    for (const path of ['/echo', '/does-not-exist']) {
      lines.length = 0;
      const r = await post(app, body, 'application/json', path);
      assert.equal(r.status, 400, `${String(body).slice(0, 20)} ${path}`);
      assert.equal(await r.text(), 'Unable to parse request.');
      assert.equal(r.headers.get('content-type'), 'text/html; charset=UTF-8');
      assert.equal(r.headers.get('x-robots-tag'), 'noindex');
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', 'as on the error pages');
      assert.equal(r.headers.get('x-debug-exception'), null, 'no exception page');
      assert.ok(!lines.some((l) => l.includes('Matched route') || l.includes('Uncaught')), 'routing never ran, nothing logged as an error');
    }
  }
  const ok = await post(app, '['.repeat(511) + ']'.repeat(511), 'application/json');
  assert.equal(ok.status, 200, 'nesting 511 is accepted');
});

test('regression: 512 nested arrays were accepted, though json_decode at its default depth 512 refuses them (PHP counts the document as a level)', async () => {
  const { app } = testApp({ routes });
  for (const body of ['['.repeat(512) + ']'.repeat(512), '{"a":'.repeat(511) + '[1]' + '}'.repeat(511)]) {
    const r = await post(app, body, 'application/json');
    assert.equal(r.status, 400, body.slice(0, 10));
    assert.equal(await r.text(), 'Unable to parse request.');
  }
});

test('regression: a JSON body that starts with a UTF-8 byte-order mark is a 400 (the decoder used to drop the mark)', async () => {
  // json_decode refuses a BOM, and so does JSON.parse; TextDecoder removed it unless told to keep it.
  const { app } = testApp({ routes });
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a":1}')]);
  for (const path of ['/echo', '/does-not-exist']) {
    const r = await post(app, bom, 'application/json', path);
    assert.equal(r.status, 400, path);
    assert.equal(await r.text(), 'Unable to parse request.');
  }
  // The same character escaped inside a string is ordinary data.
  const inside = await post(app, '{"a":"\\ufeffx"}', 'application/json');
  assert.deepEqual((await inside.json()).params, { a: '\ufeffx' });
});

test('__proto__ and constructor keys stay plain keys and never reach a prototype', async () => {
  const { app } = testApp({ routes });
  const body = '{"__proto__":{"admin":true,"member_id":"1"},"constructor":{"prototype":{"polluted":1}},"x":{"__proto__":{"deep":true}}}';
  const r = await post(app, body, 'application/json');
  assert.equal(r.status, 200);
  const params = lastParams!;
  assert.equal(Object.getPrototypeOf(params), null);
  assert.deepEqual(Object.keys(params).sort(), ['__proto__', 'constructor', 'x']);
  assert.deepEqual({ ...(params['__proto__'] as object) }, { admin: true, member_id: '1' });
  const x = params.x as Record<string, unknown>;
  assert.ok(Object.hasOwn(x, '__proto__'), 'nested __proto__ is an own key');
  assert.equal(Object.getPrototypeOf(x), Object.prototype);
  assert.equal(({} as Record<string, unknown>).admin, undefined);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).deep, undefined);
  // The member is not taken from the body.
  const echoed = await r.json();
  assert.equal(echoed.params.member_id, undefined);
});

test('form bodies (urlencoded and multipart) fill the body parameters', async () => {
  const { app } = testApp({ routes });
  const urlencoded = await post(app, 'a=1&b=two+words&list[]=x&list[]=y&__proto__=z', 'application/x-www-form-urlencoded');
  assert.deepEqual((await urlencoded.json()).params, { a: '1', b: 'two words', list: ['x', 'y'], __proto__: 'z' });
  const form = new FormData();
  form.append('name', 'Ada');
  form.append('tags[]', 'a');
  form.append('tags[]', 'b');
  form.append('upload', new File(['hello'], 'hello.txt', { type: 'text/plain' }));
  const multipart = await send(app, '/echo', { method: 'POST', body: form });
  assert.deepEqual((await multipart.json()).params, { name: 'Ada', tags: ['a', 'b'], upload: { file: 'hello.txt', size: 5 } });
  // A body without its boundary gives no variables, as PHP's rfc1867 reads it: no 400.
  const broken = await post(app, '--x\r\nnot multipart', 'multipart/form-data; boundary=zzz');
  assert.equal(broken.status, 200);
  assert.deepEqual((await broken.json()).params, {});
});

test('regression: a file input left empty (a part with filename="") arrived as an empty File; it is null, as PHP\'s UPLOAD_ERR_NO_FILE in Symfony\'s FileBag', async () => {
  const { app } = testApp({ routes });
  const body = '------x\r\nContent-Disposition: form-data; name="image"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n\r\n'
    + '------x\r\nContent-Disposition: form-data; name="photos[]"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhi\r\n'
    + '------x\r\nContent-Disposition: form-data; name="photos[]"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n\r\n'
    + '------x\r\nContent-Disposition: form-data; name="author"\r\n\r\nAda\r\n------x--\r\n';
  const r = await post(app, body, 'multipart/form-data; boundary=----x');
  assert.deepEqual((await r.json()).params, { image: null, photos: [{}, null], author: 'Ada' }, 'the chosen file is a File (an object in JSON), the empty inputs null');
  assert.ok(lastParams && (lastParams.photos as unknown[])[0] instanceof File);
});

test('_method in a JSON body and X-HTTP-Method-Override override POST (letters only)', async () => {
  const { app } = testApp({ routes });
  assert.equal((await (await post(app, '{"_method":"put"}', 'application/json')).json()).method, 'PUT');
  assert.equal((await (await post(app, '', 'text/plain', '/echo', { 'x-http-method-override': 'patch' })).json()).method, 'PATCH');
  const bad = await post(app, '{"_method":"DE LETE"}', 'application/json');
  assert.equal(bad.status, 400);
  assert.equal(decodeURIComponent(bad.headers.get('x-debug-exception') ?? ''), 'Invalid method override "DE LETE".');
  const get = await send(app, '/echo', { headers: { 'x-http-method-override': 'DELETE' } });
  assert.equal((await get.json()).method, 'GET', 'overrides only apply to POST');
});

/** A body stream that counts how many chunks were pulled. */
function countingStream(chunks: number, size: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  }, { highWaterMark: 0 });
  return { stream, pulled: () => pulled };
}

test('BODY_LIMIT: 413 from Content-Length before reading, and for chunked bodies as soon as the limit passes', async () => {
  const { app } = testApp({ routes, bodyLimit: 1024 });
  // Declared length over the limit (also with Expect: 100-continue): refused without pulling a byte.
  for (const expect of [false, true]) {
    const { stream, pulled } = countingStream(1000, 1024);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(1024 * 1024 * 1024) };
    if (expect) headers.expect = '100-continue';
    const r = await app.handle({
      method: 'POST', target: '/echo', scheme: 'http', fallbackHost: 'localhost', remoteAddress: '127.0.0.1', protocol: 'HTTP/1.1',
      header: (n) => headers[n] ?? null, headers: () => Object.entries(headers), body: () => stream,
    });
    assert.equal(r.response.status, 413, `expect=${expect}`);
    assert.equal(r.response.headers.get('x-robots-tag'), 'noindex');
    assert.equal(pulled(), 0, 'no byte read');
  }
  // Chunked (no Content-Length): cut off after the limit, not read to the end.
  const { stream, pulled } = countingStream(1000, 512);
  const r = await send(app, '/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
  assert.equal(r.status, 413);
  assert.ok(pulled() < 10, `stopped early (${pulled()} chunks pulled)`);
  // At the limit exactly: accepted.
  const fits = await post(app, JSON.stringify({ a: 'x'.repeat(1024 - 10) }), 'application/json');
  assert.equal(fits.status, 200);
  // Form bodies are bounded the same way; other content types are never read.
  assert.equal((await post(app, 'a=' + 'x'.repeat(2000), 'application/x-www-form-urlencoded')).status, 413);
  assert.equal((await post(app, 'x'.repeat(2000), 'application/octet-stream')).status, 200);
});

test('nestingDepth skips strings', () => {
  assert.equal(nestingDepth('[[["[[[[",{"a":"]]]"}]]]'), 4);
});

/** A POST whose body source fails the way hosts report a client that left mid-body. */
function cutShortSource(fail: { readBody?: () => Promise<Uint8Array | null>; stream?: ReadableStream<Uint8Array> }): Parameters<ReturnType<typeof testApp>['app']['handle']>[0] {
  const headers: Record<string, string> = { host: 'localhost', 'content-type': 'application/json', 'content-length': '100' };
  return {
    method: 'POST', target: '/echo', scheme: 'http', fallbackHost: 'localhost', remoteAddress: '127.0.0.1', protocol: 'HTTP/1.1',
    header: (n) => headers[n] ?? null, headers: () => Object.entries(headers), body: () => fail.stream ?? null,
    ...(fail.readBody ? { readBody: fail.readBody } : {}),
  };
}

test('client closing the connection mid-body: a 400 logged at ERROR, not a 500 logged at CRITICAL', async () => {
  // Node rejects the read with `aborted` (ECONNRESET); Deno with BadResource or Http; a Fetch body stream errors.
  const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
  const badResource = Object.assign(new Error('Cannot read body as underlying resource unavailable'), { name: 'BadResource' });
  const erroring = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"a":'));
      },
      pull(c) {
        c.error(Object.assign(new Error('unexpected EOF while reading HTTP/1 body'), { name: 'Http' }));
      },
    });
  const cases: [string, Parameters<typeof cutShortSource>[0]][] = [
    ['Node aborted', { readBody: () => Promise.reject(aborted) }],
    ['Deno BadResource', { readBody: () => Promise.reject(badResource) }],
    ['failing body stream', { stream: erroring() }],
  ];
  for (const [label, fail] of cases) {
    const { app, lines } = testApp({ routes, logFormat: 'json' });
    const { response } = await app.handle(cutShortSource(fail));
    assert.equal(response.status, 400, label);
    assert.equal(
      decodeURIComponent(response.headers.get('x-debug-exception') ?? ''),
      'The request body could not be read completely: the connection closed or the body stream failed before its end.',
      label,
    );
    const levels = records(lines).filter((r) => r.channel === 'request').map((r) => r.level_name);
    assert.ok(levels.includes('ERROR'), `${label}: logged at ERROR (${levels})`);
    assert.ok(!levels.includes('CRITICAL'), `${label}: never CRITICAL (${levels})`);
  }
});

test("a body the application already consumed is still its own error (500), not the client's", async () => {
  const { app } = testApp({ routes });
  const request = new Request('http://localhost/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  await request.text();
  const r = await app.fetch(request);
  assert.equal(r.status, 500);
});

test('regression: a JSON body with an unpaired surrogate escape was accepted; json_decode refuses it (400)', async () => {
  const { app } = testApp({ routes });
  for (const body of ['{"a":"\\ud800"}', '{"\\udc00":1}', '[["x\\uDBFF"]]']) {
    const r = await send(app, '/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(r.status, 400, body);
    assert.equal(await r.text(), 'Unable to parse request.');
  }
  const paired = await send(app, '/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":"\\ud83d\\ude00","b":"\\\\ud800"}' });
  assert.equal(paired.status, 200, 'a pair, and an escaped backslash before "ud800", are fine');
});

test('regression: the Content-Type was trimmed by String.prototype.trim, so a no-break space around "application/json" still made the body JSON; Symfony\'s getFormat trims as PHP does and PHP reads a form type up to ";", "," or a space', async () => {
  const { app } = testApp({ routes });
  for (const type of ['\u00a0application/json', 'application/json\u00a0', '\u00a0application/json; charset=utf-8', '\fapplication/json;']) {
    const r = await post(app, '{"member_id":"1"}', type);
    assert.equal(r.status, 200, JSON.stringify(type));
    assert.deepEqual((await r.json()).params, {}, JSON.stringify(type));
  }
  assert.deepEqual((await (await post(app, '{"a":1}', 'application/json\t;')).json()).params, { a: 1 }, 'PHP\'s trim takes a tab');
  for (const type of ['\u00a0application/x-www-form-urlencoded', 'application/x-www-form-urlencoded\u00a0']) {
    assert.deepEqual((await (await post(app, 'a=1', type)).json()).params, {}, JSON.stringify(type));
  }
  for (const type of ['application/x-www-form-urlencoded, text/plain', 'APPLICATION/X-WWW-FORM-URLENCODED charset=utf-8']) {
    assert.deepEqual((await (await post(app, 'a=1', type)).json()).params, { a: '1' }, type);
  }
});
