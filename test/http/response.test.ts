import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse } from '../../src/http/response.ts';
import { send, testApp } from '../pipeline/harness.ts';
import { source } from '../support/request.ts';

test('toFetch carries the status, every header and each Set-Cookie line', async () => {
  const response = new HttpResponse('gone', 410, { 'content-type': 'text/plain; charset=UTF-8', 'x-robots-tag': 'noindex' });
  response.headers.setCookie('a', '1');
  response.headers.setCookie('b', '2', { httpOnly: false });
  const fetched = response.toFetch();
  assert.equal(fetched.status, 410);
  assert.equal(fetched.headers.get('content-type'), 'text/plain; charset=UTF-8', 'our Content-Type replaces the one Fetch gives a string body');
  assert.equal(fetched.headers.get('x-robots-tag'), 'noindex');
  assert.deepEqual(fetched.headers.getSetCookie(), response.headers.getSetCookies());
  assert.equal(fetched.headers.getSetCookie().length, 2);
  assert.equal(await fetched.text(), 'gone');
});

test('toFetch sends no body for an empty status, and leaves Fetch its default type for an untyped string', async () => {
  const empty = new HttpResponse('ignored', 204).toFetch();
  assert.equal(empty.status, 204);
  assert.equal(empty.body, null);
  const untyped = new HttpResponse('ok', 200).toFetch();
  assert.equal(untyped.headers.get('content-type'), 'text/plain;charset=UTF-8');
  assert.equal(await untyped.text(), 'ok');
});

test('headers.lines() lists every header line in order, Set-Cookie once per cookie, as entries() does', () => {
  const r = new HttpResponse('ok', 200, { 'Content-Type': 'text/plain', 'X-A': '1' });
  r.headers.append('x-a', '2');
  r.headers.setCookie('a', '1');
  r.headers.setCookie('b', '2');
  const lines = r.headers.lines();
  assert.deepEqual(lines, ['content-type', 'text/plain', 'x-a', '1, 2', 'set-cookie', 'a=1; path=/; httponly', 'set-cookie', 'b=2; path=/; httponly']);
  assert.deepEqual(lines, [...r.headers.entries()].flat());
});

test('regression: a cookie path or domain with ";", CR or LF throws where it is set (it used to add attributes, or crash the host write)', () => {
  const headers = new HttpResponse('ok').headers;
  for (const options of [{ path: '/; domain=evil.com' }, { path: '/a;b' }, { path: '/\r\nX-Injected: 1' }, { domain: 'a.com; secure' }, { domain: 'a.com\n' }, { path: '/caf\u00e9' }]) {
    assert.throws(() => headers.setCookie('x', 'y', options), /The cookie (path|domain) ".*" contains invalid characters\./, JSON.stringify(options));
  }
  assert.throws(() => headers.setCookie('x', 'y', { maxAge: Number.NaN }), /Max-Age NaN is not a finite number/);
  assert.throws(() => headers.setCookie('x', 'y', { expires: new Date('nope') }), /not a valid date/);
  assert.throws(() => headers.setCookie('a b', 'y'), /The cookie name "a b" contains invalid characters\./);
  assert.deepEqual(headers.getSetCookies(), [], 'nothing was added');
  // What RFC 6265 allows still works; the value itself is percent-encoded, so any value is safe.
  headers.setCookie('x', 'a;b\r\nc', { path: '/members/a-b_c.d~e', domain: '.example.com' });
  assert.deepEqual(headers.getSetCookies(), ['x=a%3Bb%0D%0Ac; path=/members/a-b_c.d~e; domain=.example.com; httponly']);
});

test('regression: a header name or value a host would refuse throws at headers.set, not when the response is written', () => {
  const headers = new HttpResponse('ok').headers;
  for (const value of ['a\r\nb', 'a\u0000', 'a\u0001b', 'a\u007fb', 'snow \u2603']) {
    assert.throws(() => headers.set('x-a', value), /Header values may not contain/, JSON.stringify(value));
    assert.throws(() => headers.append('x-a', value), /Header values may not contain/, JSON.stringify(value));
  }
  for (const name of ['bad name', 'x:y', '', 'caf\u00e9', 'x\r\ny']) {
    assert.throws(() => headers.set(name, 'v'), /Invalid header name/, JSON.stringify(name));
  }
  assert.equal(headers.has('x-a'), false);
  headers.set('X-Tab', 'a\tb caf\u00e9');
  assert.equal(headers.get('x-tab'), 'a\tb caf\u00e9', 'tab and Latin-1 pass, as on every host');
  assert.equal(new HttpResponse('ok', 200, { 'x-tab': 'a\tb caf\u00e9' }).toFetch().headers.get('x-tab'), 'a\tb caf\u00e9');
});

test('regression: a controller that sets a cookie path from the query gets the kernel\'s 500 page at the call, not a host error', async () => {
  const routes = [{ name: 'c', path: '/cookie', controller: (request: import('../../src/index.ts').KernelRequest) => {
    const response = HttpResponse.text('ok');
    response.headers.setCookie('x', 'y', { path: String(request.query.get('p')) });
    return response;
  } }];
  for (const env of ['dev', 'prod'] as const) {
    const { app, lines } = testApp({ env, routes });
    const r = await send(app, '/cookie?p=%2F%0D%0AX-Injected%3A%201');
    assert.equal(r.status, 500, env);
    assert.equal(r.headers.get('x-injected'), null);
    assert.equal(r.headers.getSetCookie().length, 0);
    assert.equal(r.headers.get('x-robots-tag'), 'noindex', 'the kernel answered, with its response listeners');
    assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
    if (env === 'dev') assert.match(decodeURIComponent(r.headers.get('x-debug-exception') ?? ''), /^The cookie path .* contains invalid characters\.$/);
    assert.ok(lines.some((l) => l.includes('contains invalid characters')), 'logged');
    const fine = await send(app, '/cookie?p=%2Fok');
    assert.deepEqual(fine.headers.getSetCookie(), ['x=y; path=/ok; httponly']);
  }
});

test('a SameSite value other than lax, strict or none throws where the cookie is set (every Set-Cookie line stays one a host accepts)', () => {
  const headers = new HttpResponse('ok').headers;
  assert.throws(() => headers.setCookie('x', 'y', { sameSite: 'lax\r\nX-Injected: 1' as 'lax' }), /The cookie SameSite ".*" is not lax, strict or none\./);
  headers.setCookie('x', 'y', { sameSite: 'strict' });
  assert.deepEqual(headers.getSetCookies(), ['x=y; path=/; httponly; samesite=strict']);
});

test('regression: the redirect page left "\'" raw inside the meta refresh\'s url=\'…\', so the refresh went to a cut-short URL', async () => {
  const { app } = testApp({
    routes: [
      { name: 'dir', path: '/dir/', methods: ['GET'], controller: () => HttpResponse.text('dir') },
      { name: 'go', path: '/go', controller: () => HttpResponse.redirect(`/it's?a=1&b=<2>"`) },
    ],
  });
  // The raw target, as Node's parser hands it over (a Fetch Request would percent-encode the quotes).
  const { response } = await app.handle(source({ target: "/dir?a='x'&b=1" }));
  assert.equal(response.status, 301);
  assert.equal(response.headers.get('location'), "http://localhost/dir/?a='x'&b=1", 'the header keeps what URIs allow');
  const body = response.bodyText() ?? '';
  assert.ok(body.includes(`<meta http-equiv="refresh" content="0;url='http://localhost/dir/?a=&#039;x&#039;&amp;b=1'" />`), body);
  assert.ok(body.includes('<title>Redirecting to http://localhost/dir/?a=&#039;x&#039;&amp;b=1</title>'), body);

  const r = await send(app, '/go');
  assert.equal(r.status, 302);
  assert.equal(r.headers.get('location'), `/it's?a=1&b=<2>"`);
  const page = await r.text();
  const escaped = '/it&#039;s?a=1&amp;b=&lt;2&gt;&quot;';
  assert.ok(page.includes(`content="0;url='${escaped}'"`), page);
  assert.ok(page.includes(`Redirecting to <a href="${escaped}">${escaped}</a>.`), page);
  assert.ok(!page.includes("it's"), page);
});

test('regression: a status outside 100–599 made a response the hosts then refused or sent as-is; the constructor refuses it as Symfony does', () => {
  for (const status of [0, 99, 600, 999, 1000, 200.5, Number.NaN]) {
    assert.throws(() => new HttpResponse('x', status), (e: unknown) => e instanceof RangeError && e.message === `The HTTP status code "${status}" is not valid.`, String(status));
  }
  for (const status of [100, 204, 418, 599]) assert.equal(new HttpResponse('', status).status, status);
});
