import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse } from '../../src/http/response.ts';
import { send, testApp } from '../pipeline/harness.ts';
import { kernelRequest, source } from '../support/request.ts';

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
  assert.deepEqual(lines, ['content-type', 'text/plain', 'x-a', '1, 2', 'set-cookie', 'a=1; path=/; httponly; samesite=lax', 'set-cookie', 'b=2; path=/; httponly; samesite=lax']);
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
  assert.deepEqual(headers.getSetCookies(), ['x=a%3Bb%0D%0Ac; path=/members/a-b_c.d~e; domain=.example.com; httponly; samesite=lax']);
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
    assert.deepEqual(fine.headers.getSetCookie(), ['x=y; path=/ok; httponly; samesite=lax']);
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
  // The Location carries what URIs do not allow percent-encoded, as the trailing-slash redirect's does;
  // the page shows the URL as given.
  assert.equal(r.headers.get('location'), "/it's?a=1&b=%3C2%3E%22");
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

test('regression: redirect() to a non-ASCII URL sent Latin-1 bytes (é) or threw (above U+00FF); the Location is percent-encoded UTF-8, the page shows the URL', () => {
  const cafe = HttpResponse.redirect('/café?q=a b');
  assert.equal(cafe.headers.get('location'), '/caf%C3%A9?q=a%20b');
  assert.ok(cafe.bodyText()!.includes('Redirecting to <a href="/café?q=a b">/café?q=a b</a>.'));
  assert.equal(HttpResponse.redirect('/日本').headers.get('location'), '/%E6%97%A5%E6%9C%AC');
  assert.equal(HttpResponse.redirect('/a%20b?x=%C3%A9').headers.get('location'), '/a%20b?x=%C3%A9', 'an encoded URL is left as it is');
  assert.equal(HttpResponse.redirect('/x\uD800').headers.get('location'), '/x%EF%BF%BD', 'a lone surrogate is U+FFFD');
});

test('regression: redirect() accepted an empty URL and a status that is not a redirect; RedirectResponse refuses both', () => {
  assert.throws(() => HttpResponse.redirect(''), (e: Error) => e instanceof TypeError && e.message === 'Cannot redirect to an empty URL.');
  assert.throws(() => HttpResponse.redirect('/x', 200), (e: Error) => e instanceof RangeError && e.message === 'The HTTP status code is not a redirect ("200" given).');
  assert.throws(() => HttpResponse.redirect('/x', 300), /not a redirect \("300" given\)/);
  assert.throws(() => HttpResponse.redirect('/x', 99), /The HTTP status code "99" is not valid\./, 'an invalid status is reported first, as the constructor does');
  for (const status of [201, 301, 302, 303, 307, 308]) assert.equal(HttpResponse.redirect('/x', status).status, status);
});

test('regression: json(null) and json(undefined) sent `null`; JsonResponse sends `{}`', () => {
  assert.equal(HttpResponse.json(null).body, '{}');
  assert.equal(HttpResponse.json(undefined).body, '{}');
  assert.equal(HttpResponse.json([null]).body, '[null]', 'a null inside the data is kept');
  assert.equal(HttpResponse.json({ s: 'null' }).body, '{"s":"null"}');
});

test('regression: json() wrote NaN and Infinity as null; json_encode refuses them (Inf and NaN cannot be JSON encoded)', () => {
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.throws(() => HttpResponse.json({ a: [1, { n: bad }] }), (e: Error) => e instanceof RangeError && e.message === 'Inf and NaN cannot be JSON encoded');
  }
  assert.throws(() => HttpResponse.json(NaN), /Inf and NaN/);
  assert.equal(HttpResponse.json({ n: 1.5, z: null }).body, '{"n":1.5,"z":null}');
});

test('Response status accessors: getStatusCode, setStatusCode and the is* checks follow Response.php', () => {
  const r = new HttpResponse('x');
  assert.equal(r.getStatusCode(), 200);
  assert.equal(r.setStatusCode(404), r);
  assert.equal(r.status, 404);
  assert.throws(() => r.setStatusCode(600), /The HTTP status code "600" is not valid\./);
  assert.throws(() => r.setStatusCode(99.5), RangeError);
  const is = (status: number) => {
    const s = new HttpResponse('', status);
    return [s.isInformational(), s.isSuccessful(), s.isOk(), s.isForbidden(), s.isNotFound(), s.isClientError(), s.isServerError(), s.isEmpty()].map(Number).join('');
  };
  assert.equal(is(100), '10000000');
  assert.equal(is(200), '01100000');
  assert.equal(is(204), '01000001');
  assert.equal(is(299), '01000000');
  assert.equal(is(304), '00000001');
  assert.equal(is(403), '00010100');
  assert.equal(is(404), '00001100');
  assert.equal(is(499), '00000100');
  assert.equal(is(500), '00000010');
  assert.equal(is(599), '00000010');
});

test('Response getContent/setContent: text or bytes as text, false for a stream, null is empty', () => {
  const r = new HttpResponse('abc');
  assert.equal(r.getContent(), 'abc');
  assert.equal(r.setContent('é'), r);
  assert.equal(r.getContent(), 'é');
  r.setContent(null);
  assert.equal(r.getContent(), '');
  assert.equal(new HttpResponse(new TextEncoder().encode('bytes')).getContent(), 'bytes');
  assert.equal(HttpResponse.stream(new Blob(['s']).stream()).getContent(), false);
});

test('Response cache helpers write Cache-Control as ResponseHeaderBag computes it', () => {
  const r = new HttpResponse('x');
  r.setMaxAge(60);
  assert.equal(r.headers.get('cache-control'), 'max-age=60, private', 'no public/private/s-maxage: private added');
  r.setPublic();
  assert.equal(r.headers.get('cache-control'), 'max-age=60, public');
  r.setPrivate();
  assert.equal(r.headers.get('cache-control'), 'max-age=60, private');
  r.setSharedMaxAge(600);
  assert.equal(r.headers.get('cache-control'), 'max-age=60, public, s-maxage=600', 'setSharedMaxAge makes it public');
  assert.throws(() => r.setMaxAge(1.5), TypeError);
  const kept = new HttpResponse('x', 200, { 'cache-control': 'no-store' });
  kept.setPublic();
  assert.equal(kept.headers.get('cache-control'), 'no-store, public', 'directives already set are kept');
});

test('Response setEtag, setLastModified, setExpires and setVary follow Response.php', () => {
  const r = new HttpResponse('x');
  r.setEtag('abc');
  assert.equal(r.headers.get('etag'), '"abc"');
  r.setEtag('"q"', true);
  assert.equal(r.headers.get('etag'), 'W/"q"');
  r.setEtag(null);
  assert.equal(r.headers.has('etag'), false);
  r.setLastModified(new Date(Date.UTC(2024, 0, 2, 3, 4, 5)));
  assert.equal(r.headers.get('last-modified'), 'Tue, 02 Jan 2024 03:04:05 GMT');
  r.setExpires(new Date(Date.UTC(2030, 5, 1)));
  assert.equal(r.headers.get('expires'), 'Sat, 01 Jun 2030 00:00:00 GMT');
  r.setExpires(null);
  r.setLastModified(null);
  assert.equal(r.headers.has('expires') || r.headers.has('last-modified'), false);
  assert.throws(() => r.setExpires(new Date(NaN)), TypeError);
  r.setVary('Accept');
  r.setVary(['Cookie', 'Origin'], false);
  assert.equal(r.headers.get('vary'), 'Accept, Cookie, Origin');
  r.setVary('Accept-Language');
  assert.equal(r.headers.get('vary'), 'Accept-Language');
});

test('Response isNotModified/setNotModified: ETag compared weakly, dates only without tags, GET/HEAD only', () => {
  const withTag = (headers: Record<string, string>, method = 'GET') => {
    const r = new HttpResponse('body', 200, { 'content-type': 'text/plain', 'last-modified': 'Tue, 02 Jan 2024 03:04:05 GMT' });
    r.setEtag('v1');
    return { r, result: r.isNotModified(kernelRequest({ method, headers })) };
  };
  const hit = withTag({ 'if-none-match': 'W/"v0", W/"v1"' });
  assert.equal(hit.result, true);
  assert.equal(hit.r.status, 304);
  assert.equal(hit.r.getContent(), '');
  assert.equal(hit.r.headers.has('content-type') || hit.r.headers.has('last-modified'), false, 'setNotModified drops them');
  assert.equal(hit.r.headers.get('etag'), '"v1"', 'the ETag stays');
  assert.equal(withTag({ 'if-none-match': '*' }).result, true);
  assert.equal(withTag({ 'if-none-match': '"v2"', 'if-modified-since': 'Wed, 03 Jan 2024 00:00:00 GMT' }).result, false, 'tags decide, dates are ignored');
  assert.equal(withTag({ 'if-none-match': '"v1"' }, 'POST').result, false);
  const miss = withTag({ 'if-none-match': '"v2"' });
  assert.equal(miss.r.status, 200);
  const dated = new HttpResponse('x');
  dated.setLastModified(new Date(Date.UTC(2024, 0, 2)));
  assert.equal(dated.isNotModified(kernelRequest({ headers: { 'if-modified-since': 'Tue, 02 Jan 2024 00:00:00 GMT' } })), true);
  const newer = new HttpResponse('x');
  newer.setLastModified(new Date(Date.UTC(2024, 0, 3)));
  assert.equal(newer.isNotModified(kernelRequest({ headers: { 'if-modified-since': 'Tue, 02 Jan 2024 00:00:00 GMT' } })), false);
  assert.equal(new HttpResponse('x').isNotModified(kernelRequest({ headers: { 'if-modified-since': 'Tue, 02 Jan 2024 00:00:00 GMT' } })), false, 'no validators');
});

test('regression: isRedirect() required a Location and took any 3xx; Response::isRedirect is the status (201, 301, 302, 303, 307, 308), so a kernel.exception listener\'s 201 became a 500', async () => {
  const redirect = (status: number, location?: string) => new HttpResponse('', status, location === undefined ? {} : { location });
  for (const status of [201, 301, 302, 303, 307, 308]) assert.equal(redirect(status).isRedirect(), true, String(status));
  for (const status of [200, 300, 304, 305]) assert.equal(redirect(status, '/x').isRedirect(), false, String(status));
  assert.equal(redirect(302, '/x').isRedirect('/x'), true);
  assert.equal(redirect(302, '/x').isRedirect('/y'), false);
  assert.equal(redirect(302).isRedirect('/y'), false);

  // HttpKernel::handleThrowable keeps the status of an error, or of a redirect, that a listener set.
  const answering = (response: () => HttpResponse) => testApp({
    env: 'prod',
    routes: [{ name: 'fails', path: '/fails', controller: () => { throw new Error('boom'); } }],
    listeners: [{ hook: 'kernel.exception', listener: { id: 'App::onException', role: 'answer', call: (event: { setResponse(r: HttpResponse): void }) => event.setResponse(response()) }, placement: { index: 0 } }],
  }).app;
  assert.equal((await send(answering(() => new HttpResponse('made', 201)), '/fails')).status, 201);
  assert.equal((await send(answering(() => new HttpResponse('', 303)), '/fails')).status, 303);
  assert.equal((await send(answering(() => new HttpResponse('', 300, { location: '/a' })), '/fails')).status, 500);
});

test('regression: If-None-Match W/* matched no entity tag; Response::isNotModified strips W/ before comparing with *', () => {
  const r = new HttpResponse('body', 200, { 'content-type': 'text/plain' });
  r.setEtag('v1');
  assert.equal(r.isNotModified(kernelRequest({ headers: { 'if-none-match': 'W/*' } })), true);
  assert.equal(r.status, 304);
});

test('regression: an asctime If-Modified-Since was read in the local time zone (a wrong 304 west of UTC, a missed one east of it); HTTP dates are UTC', () => {
  const zone = process.env.TZ;
  const notModified = (since: string) => {
    const r = new HttpResponse('x');
    r.headers.set('last-modified', 'Sun, 06 Nov 1994 08:49:37 GMT');
    return r.isNotModified(kernelRequest({ headers: { 'if-modified-since': since } }));
  };
  try {
    process.env.TZ = 'America/New_York';
    assert.equal(notModified('Sun Nov  6 06:00:00 1994'), false, 'two hours before Last-Modified');
    process.env.TZ = 'Asia/Tokyo';
    assert.equal(notModified('Sun Nov  6 08:49:37 1994'), true, 'the same instant');
    assert.equal(notModified('Sunday, 06-Nov-94 08:49:37 GMT'), true, 'RFC 850');
    assert.equal(notModified('Sun, 06 Nov 1994 08:49:37 GMT'), true, 'IMF-fixdate');
    assert.equal(notModified('1994'), false, 'no HTTP date');
    assert.equal(notModified('Sun, 31 Feb 1994 08:49:37 GMT'), false, 'no such day');
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
});

test('regression: removing Last-Modified computed Cache-Control again; ResponseHeaderBag computes it when Last-Modified is set, not when it is removed', async () => {
  const { app } = testApp({
    routes: [
      {
        name: 'conditional',
        path: '/conditional',
        controller: (request) => {
          const response = HttpResponse.text('body');
          response.headers.set('last-modified', 'Tue, 02 Jan 2024 00:00:00 GMT');
          response.isNotModified(request);
          return response;
        },
      },
    ],
  });
  const r = await send(app, '/conditional', { headers: { 'if-modified-since': 'Tue, 02 Jan 2024 00:00:00 GMT' } });
  assert.equal(r.status, 304);
  assert.equal(r.headers.get('last-modified'), null);
  assert.equal(r.headers.get('cache-control'), 'private, must-revalidate');
  const fresh = await send(app, '/conditional');
  assert.equal(fresh.headers.get('cache-control'), 'private, must-revalidate');
});

test('regression: a Response of another Fetch implementation (the undici package, a polyfill) was refused with a 500 "must return a Response"; it is answered as a Fetch Response', async () => {
  /** What such a class looks like from here: no `instanceof Response`, named Response by its toStringTag. */
  class OtherResponse {
    readonly status = 201;
    readonly headers = new Headers({ 'content-type': 'text/plain; charset=UTF-8', 'x-made-by': 'other' });
    readonly body = new Response('created elsewhere').body;
    get [Symbol.toStringTag]() {
      return 'Response';
    }
  }
  const { app } = testApp({ routes: [{ name: 'other', path: '/other', controller: () => new OtherResponse() as unknown as Response }] });
  const r = await send(app, '/other');
  assert.equal(r.status, 201);
  assert.equal(r.headers.get('x-made-by'), 'other');
  assert.equal(await r.text(), 'created elsewhere');
});

test('regression: a streamed response made a 304 by isNotModified left its stream open (If-None-Match: * held each source); the stream is cancelled, as a StreamedResponse callback never runs', async () => {
  const cancelled: unknown[] = [];
  const { app } = testApp({
    routes: [
      {
        name: 'download',
        path: '/download',
        controller: (request) => {
          const stream = new ReadableStream<Uint8Array>({
            pull: (controller) => controller.enqueue(new Uint8Array(1024)),
            cancel: (reason) => void cancelled.push(reason ?? 'cancelled'),
          });
          const response = HttpResponse.stream(stream, 200, { 'content-type': 'application/octet-stream' });
          response.setEtag('v1');
          response.isNotModified(request);
          return response;
        },
      },
    ],
  });
  const r = await send(app, '/download', { headers: { 'if-none-match': '*' } });
  assert.equal(r.status, 304);
  assert.equal(await r.text(), '');
  assert.equal(cancelled.length, 1, 'the source was told to stop');
  const replaced = new HttpResponse(new ReadableStream<Uint8Array>({ cancel: () => void cancelled.push('setContent') }));
  replaced.setContent('text instead');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cancelled.at(-1), 'setContent');
  assert.equal(replaced.getContent(), 'text instead');
});

test('the helpers take a Fetch Headers or name/value pairs as well as a plain object', () => {
  const fromHeaders = HttpResponse.json({ ok: true }, 201, new Headers({ 'x-cart-size': '3' }));
  assert.equal(fromHeaders.headers.get('x-cart-size'), '3');
  assert.equal(fromHeaders.headers.get('content-type'), 'application/json');
  const fromPairs = HttpResponse.text('hi', 200, [['x-a', '1'], ['x-b', '2']]);
  assert.deepEqual([fromPairs.headers.get('x-a'), fromPairs.headers.get('x-b')], ['1', '2']);
});
