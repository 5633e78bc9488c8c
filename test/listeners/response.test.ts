import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

const encoder = new TextEncoder();
const routes: RouteDefinition[] = [
  { name: 'bare', path: '/bare', controller: () => new HttpResponse('<p>hi</p>') },
  { name: 'text', path: '/text', controller: () => new HttpResponse('plain', 200, { 'content-type': 'text/plain' }) },
  { name: 'json', path: '/json', controller: () => HttpResponse.json({ a: 1 }) },
  { name: 'format', path: '/format', controller: () => new HttpResponse('{}'), defaults: { _format: 'json' } },
  { name: 'empty', path: '/empty', controller: () => new HttpResponse('should vanish', 204, { 'content-type': 'text/plain' }) },
  { name: 'max_age', path: '/max-age', controller: () => HttpResponse.text('x', 200, { 'cache-control': 'max-age=60' }) },
  { name: 'validators', path: '/validators', controller: () => HttpResponse.text('x', 200, { 'last-modified': new Date(0).toUTCString() }) },
  { name: 'redirect', path: '/redirect', controller: () => HttpResponse.redirect('/bare', 302) },
  { name: 'cookie', path: '/cookie', controller: () => { const r = HttpResponse.text('c'); r.headers.setCookie('pref', 'dark'); return r; } },
  { name: 'fetch_response', path: '/fetch', controller: () => new Response('from fetch', { headers: { 'content-type': 'text/plain' } }) },
  {
    name: 'stream',
    path: '/stream',
    controller: () => {
      let i = 0;
      return HttpResponse.stream(new ReadableStream<Uint8Array>({
        pull(c) {
          if (i === 3) return c.close();
          c.enqueue(encoder.encode(`chunk${i++};`));
        },
      }), 200, { 'content-type': 'text/plain' });
    },
  },
];

test('default content type, charset for text/*, _format, JSON untouched', async () => {
  const { app } = testApp({ routes });
  assert.equal((await send(app, '/bare')).headers.get('content-type'), 'text/html; charset=UTF-8');
  assert.equal((await send(app, '/text')).headers.get('content-type'), 'text/plain; charset=UTF-8');
  assert.equal((await send(app, '/json')).headers.get('content-type'), 'application/json');
  assert.equal((await send(app, '/format')).headers.get('content-type'), 'application/json');
  assert.equal((await send(app, '/fetch')).headers.get('content-type'), 'text/plain; charset=UTF-8');
});

test('the charset rule holds for every response, whatever content types came before (more than the listener remembers)', async () => {
  const types = [...Array.from({ length: 80 }, (_, i) => `text/x-kind${i}`), 'text/css; charset=ISO-8859-1', 'application/xml', 'TEXT/CSV', ' text/plain'];
  const { app } = testApp({ routes: [{ name: 'typed', path: '/typed/:n', controller: (req) => new HttpResponse('x', 200, { 'content-type': types[Number(req.attributes.get('n'))] }) }] });
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < types.length; i++) {
      const type = types[i];
      const expected = /^\s*text\//i.test(type) && !/;\s*charset=/i.test(type) ? `${type.trim()}; charset=UTF-8` : type.trim();
      assert.equal((await send(app, `/typed/${i}`)).headers.get('content-type'), expected, type);
    }
  }
});

test('Cache-Control: no-cache, private by default; private added to bare directives; none on a 301', async () => {
  const { app } = testApp({ routes });
  assert.equal((await send(app, '/bare')).headers.get('cache-control'), 'no-cache, private');
  assert.equal((await send(app, '/max-age')).headers.get('cache-control'), 'max-age=60, private');
  assert.equal((await send(app, '/validators')).headers.get('cache-control'), 'private, must-revalidate');
  const redirect = await send(app, '/redirect');
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.get('cache-control'), 'no-cache, private', 'Symfony drops it only from permanent redirects');
  const slash = await send(app, '/bare/');
  assert.equal(slash.status, 301);
  assert.equal(slash.headers.get('cache-control'), null);
});

test('204 and 304 carry no body and no Content-Type', async () => {
  const { app } = testApp({ routes });
  const r = await send(app, '/empty');
  assert.equal(r.status, 204);
  assert.equal(await r.text(), '');
  assert.equal(r.headers.get('content-type'), null);
});

test('HEAD: same status and headers as GET (Content-Length included), empty body', async () => {
  const { app } = testApp({ routes, env: 'prod', debug: false });
  for (const path of ['/bare', '/json', '/nowhere', '/stream']) {
    const get = await send(app, path);
    const getBody = await get.arrayBuffer();
    const head = await send(app, path, { method: 'HEAD' });
    assert.equal(head.status, get.status, path);
    assert.equal(await head.text(), '', path);
    const strip = (r: Response) => [...r.headers].filter(([k]) => k !== 'date' && k !== 'expires' && k !== 'content-length');
    assert.deepEqual(strip(head), strip(get), path);
    if (path !== '/stream') assert.equal(head.headers.get('content-length'), String(getBody.byteLength), path);
  }
});

test('HEAD declares the length of the body GET sends: 0 for a null body, the real length over a wrong declared one', async () => {
  const { app } = testApp({
    env: 'prod',
    debug: false,
    routes: [
      { name: 'none', path: '/none', controller: () => new HttpResponse(null) },
      { name: 'declared', path: '/declared', controller: () => new HttpResponse('héllo', 200, { 'content-length': '999' }) },
      { name: 'stream_declared', path: '/stream-declared', controller: () => HttpResponse.stream(new ReadableStream({ start: (c) => c.close() }), 200, { 'content-length': '0' }) },
    ],
  });
  assert.equal((await send(app, '/none', { method: 'HEAD' })).headers.get('content-length'), '0');
  assert.equal((await send(app, '/declared', { method: 'HEAD' })).headers.get('content-length'), String(encoder.encode('héllo').byteLength));
  // A stream's length is unknown to the kernel: what the app declared stays, as on GET.
  assert.equal((await send(app, '/stream-declared', { method: 'HEAD' })).headers.get('content-length'), '0');
});

test('streamed bodies pass through unbuffered, proxies are told not to buffer', async () => {
  const { app } = testApp({ routes });
  const r = await send(app, '/stream');
  assert.equal(r.headers.get('x-accel-buffering'), 'no');
  assert.equal(r.headers.get('content-length'), null);
  const reader = r.body!.getReader();
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), 'chunk0;', 'chunks arrive one by one');
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  assert.equal(rest, 'chunk1;chunk2;');
});

test('cookies of HTTPS requests are marked secure', async () => {
  const { app } = testApp({ routes });
  assert.match((await send(app, 'https://localhost/cookie')).headers.getSetCookie()[0], /; secure/);
  assert.doesNotMatch((await send(app, 'http://localhost/cookie')).headers.getSetCookie()[0], /secure/);
});

test('regression: the secure flag added for HTTPS came after httponly; it is written where Symfony\'s Cookie writes it', async () => {
  const { app } = testApp({
    routes: [
      { name: 'flags', path: '/flags', controller: () => {
        const r = HttpResponse.text('ok');
        r.headers.setCookie('a', '1');
        r.headers.setCookie('b', '2', { httpOnly: false, sameSite: 'strict' });
        r.headers.setCookie('c', '3', { httpOnly: false, sameSite: null });
        r.headers.setCookie('d', '4', { secure: true });
        return r;
      } },
    ],
  });
  assert.deepEqual((await send(app, 'https://localhost/flags')).headers.getSetCookie(), [
    'a=1; path=/; secure; httponly; samesite=lax',
    'b=2; path=/; secure; samesite=strict',
    'c=3; path=/; secure',
    'd=4; path=/; secure; httponly; samesite=lax',
  ]);
});

test('regression: on HTTPS every Set-Cookie became secure; Symfony\'s Cookie::setSecureDefault only affects cookies whose secure was not given', async () => {
  const { app } = testApp({
    routes: [
      { name: 'explicit', path: '/explicit', controller: () => {
        const r = HttpResponse.text('ok');
        r.headers.setCookie('given_false', '1', { secure: false });
        r.headers.setCookie('not_given', '2');
        r.headers.clearCookie('cleared');
        r.headers.append('set-cookie', 'raw=3; path=/; httponly');
        r.headers.append('set-cookie', 'raw_secure=4; path=/; Secure');
        return r;
      } },
    ],
  });
  const lines = (await send(app, 'https://localhost/explicit')).headers.getSetCookie();
  assert.equal(lines[0], 'given_false=1; path=/; httponly; samesite=lax', 'secure: false stays non-secure');
  assert.equal(lines[1], 'not_given=2; path=/; secure; httponly; samesite=lax', 'secure not given: the HTTPS default');
  assert.match(lines[2]!, /^cleared=deleted; expires=[^;]+; Max-Age=0; path=\/; httponly$/, 'ResponseHeaderBag::clearCookie: secure false');
  assert.equal(lines[3], 'raw=3; path=/; httponly', 'a raw line: Cookie::fromString gives secure false');
  assert.equal(lines[4], 'raw_secure=4; path=/; Secure');
});

test('regression: Cache-Control an app set with public or private kept its order; ResponseHeaderBag renders directives sorted', async () => {
  const { app } = testApp({
    routes: [
      { name: 'shared', path: '/shared', controller: () => HttpResponse.text('x', 200, { 'cache-control': 'public, max-age=60' }) },
      { name: 'personal', path: '/personal', controller: () => HttpResponse.text('x', 200, { 'cache-control': 'private, no-store, Must-Revalidate' }) },
      { name: 'sorted', path: '/sorted', controller: () => HttpResponse.text('x', 200, { 'cache-control': 'max-age=10, public' }) },
    ],
  });
  assert.equal((await send(app, '/shared')).headers.get('cache-control'), 'max-age=60, public');
  assert.equal((await send(app, '/personal')).headers.get('cache-control'), 'must-revalidate, no-store, private');
  assert.equal((await send(app, '/sorted')).headers.get('cache-control'), 'max-age=10, public');
});

test('regression: an HTTP/1.0 client of a no-cache response got no Pragma or Expires (Response::prepare adds both)', async () => {
  const { app } = testApp({
    routes: [
      ...routes,
      { name: 'no_cache', path: '/no-cache', controller: () => HttpResponse.text('x', 200, { 'cache-control': 'no-cache' }) },
    ],
  });
  const http10 = (path: string) => Promise.resolve(app.fetch(new Request(`http://localhost${path}`), { protocol: 'HTTP/1.0' }));

  // The computed default is recomputed once Expires is set, as ResponseHeaderBag does.
  const byDefault = await http10('/bare');
  assert.equal(byDefault.headers.get('pragma'), 'no-cache');
  assert.equal(byDefault.headers.get('expires'), '-1');
  assert.equal(byDefault.headers.get('cache-control'), 'private, must-revalidate');

  const explicit = await http10('/no-cache');
  assert.equal(explicit.headers.get('pragma'), 'no-cache');
  assert.equal(explicit.headers.get('expires'), '-1');
  assert.equal(explicit.headers.get('cache-control'), 'no-cache, private');

  const cacheable = await http10('/max-age');
  assert.equal(cacheable.headers.get('pragma'), null);
  assert.equal(cacheable.headers.get('expires'), null);
  assert.equal(cacheable.headers.get('cache-control'), 'max-age=60, private');

  const http11 = await send(app, '/bare');
  assert.equal(http11.headers.get('pragma'), null);
  assert.equal(http11.headers.get('expires'), null);
  assert.equal(http11.headers.get('cache-control'), 'no-cache, private');
});

test('regression: a quoted Cache-Control value holding a comma was split into two directives; values are quoted as HeaderUtils quotes them', async () => {
  const { app } = testApp({
    routes: [
      { name: 'field', path: '/field', controller: () => HttpResponse.text('x', 200, { 'cache-control': 'public, no-cache="Set-Cookie, X-Id", max-age=5' }) },
      { name: 'escaped', path: '/escaped', controller: () => HttpResponse.text('x', 200, { 'cache-control': 'private, ext="a \\"b\\" c"' }) },
      { name: 'empty', path: '/empty-value', controller: () => HttpResponse.text('x', 200, { 'cache-control': 'public, ext=""' }) },
    ],
  });
  assert.equal((await send(app, '/field')).headers.get('cache-control'), 'max-age=5, no-cache="Set-Cookie, X-Id", public');
  assert.equal((await send(app, '/escaped')).headers.get('cache-control'), 'ext="a \\"b\\" c", private');
  assert.equal((await send(app, '/empty-value')).headers.get('cache-control'), 'ext="", public');
});

test('regression: a kernel.response listener after ResponseListener that set max-age or public kept the default no-cache (`max-age=600, no-cache, public`); ResponseHeaderBag starts from no directive', async () => {
  const later = (change: (response: HttpResponse) => void) => ({
    hook: 'kernel.response' as const,
    listener: { id: 'App::onResponse', role: 'app cache headers', call: (event: { response: HttpResponse }) => change(event.response) },
    placement: { after: 'ResponseListener::onKernelResponse' },
  });
  const cases: [(response: HttpResponse) => void, string][] = [
    [(r) => r.setPublic().setMaxAge(600), 'max-age=600, public'],
    [(r) => r.setMaxAge(60), 'max-age=60, private'],
    [(r) => r.setSharedMaxAge(30), 'public, s-maxage=30'],
    // ResponseHeaderBag::set recomputes the default when Last-Modified or Expires arrive.
    [(r) => r.setLastModified(new Date(0)), 'private, must-revalidate'],
    [(r) => r.setExpires(new Date(0)).setMaxAge(5), 'max-age=5, private'],
  ];
  for (const [change, expected] of cases) {
    const { app } = testApp({ routes, listeners: [later(change)] });
    assert.equal((await send(app, '/bare')).headers.get('cache-control'), expected, String(change));
  }
  // An empty Cache-Control set by the app is no directive at all: the default, which later directives replace.
  const { app } = testApp({
    routes: [{ name: 'blank', path: '/blank', controller: () => new HttpResponse('x', 200, { 'cache-control': '' }) }],
    listeners: [later((r) => r.setMaxAge(9))],
  });
  assert.equal((await send(app, '/blank')).headers.get('cache-control'), 'max-age=9, private');
});

test('regression: every 301 lost its Cache-Control; only RedirectResponse removes it, so a plain 301 response keeps `no-cache, private` and a deleted header stays deleted', async () => {
  const { app } = testApp({ routes: [
    { name: 'redirect301', path: '/r301', controller: () => HttpResponse.redirect('/bare', 301) },
    { name: 'given', path: '/given', controller: () => HttpResponse.redirect('/bare', 301, { 'cache-control': 'max-age=60' }) },
    { name: 'plain301', path: '/plain301', controller: () => new HttpResponse('', 301, { location: '/bare' }) },
    { name: 'fetch301', path: '/fetch301', controller: () => Response.redirect('http://localhost/bare', 301) },
    { name: 'switched', path: '/switched', controller: () => HttpResponse.redirect('/bare', 302).setStatusCode(301) },
    { name: 'dropped', path: '/dropped', controller: () => { const r = new HttpResponse('x'); r.headers.delete('cache-control'); return r; } },
    { name: 'revalidated', path: '/revalidated', controller: () => HttpResponse.redirect('/bare', 301).setLastModified(new Date(0)) },
  ] });
  const cacheControl = async (path: string) => (await send(app, path)).headers.get('cache-control');
  assert.equal(await cacheControl('/r301'), null, 'RedirectResponse::__construct removes it from a 301');
  assert.equal(await cacheControl('/given'), 'max-age=60, private', 'one given to RedirectResponse stays');
  assert.equal(await cacheControl('/plain301'), 'no-cache, private');
  assert.equal(await cacheControl('/fetch301'), 'no-cache, private');
  assert.equal(await cacheControl('/switched'), 'no-cache, private');
  assert.equal(await cacheControl('/dropped'), null, 'ResponseHeaderBag::remove: none is sent');
  assert.equal(await cacheControl('/revalidated'), 'private, must-revalidate', 'Last-Modified computes it again');
});

test('regression: HEAD of a Fetch Response whose body was already read answered 200 where GET answers 500; HEAD gets GET\'s status', async () => {
  const { app } = testApp({
    env: 'prod',
    debug: false,
    logSink: () => {},
    routes: [
      {
        name: 'read_already',
        path: '/read-already',
        controller: async () => {
          const upstream = new Response(new ReadableStream<Uint8Array>({ start: (c) => { c.enqueue(encoder.encode('x')); c.close(); } }));
          await upstream.text();
          return upstream;
        },
      },
    ],
  });
  const get = await send(app, '/read-already');
  const head = await send(app, '/read-already', { method: 'HEAD' });
  assert.equal(get.status, 500);
  assert.equal(head.status, get.status);
  // Both are the kernel's error page now (the Response is refused where it is returned); HEAD says its length.
  const getBody = await get.text();
  assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(getBody)));
  assert.deepEqual([...head.headers].filter(([name]) => name !== 'content-length'), [...get.headers]);
});
