import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { serializeCookie } from '../../src/http/cookies.ts';
import { serve } from '../../src/runtime/node.ts';
import { send, testApp } from '../pipeline/harness.ts';

const IE8 = 'Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)';
const IE10 = 'Mozilla/5.0 (compatible; MSIE 10.0; Windows NT 6.1; Trident/6.0)';

test('regression: an attachment sent over HTTPS to MSIE < 9 kept its Cache-Control; Response::prepare removes it (ensureIEOverSSLCompatibility)', async () => {
  const routes: RouteDefinition[] = [
    { name: 'download', path: '/download', controller: () => HttpResponse.text('a,b', 200, { 'content-disposition': 'Attachment; filename="report.csv"' }) },
    { name: 'cached', path: '/cached', controller: () => HttpResponse.text('a,b', 200, { 'content-disposition': 'attachment', 'cache-control': 'max-age=60' }) },
    { name: 'inline', path: '/inline', controller: () => HttpResponse.text('a,b', 200, { 'content-disposition': 'inline' }) },
    { name: 'later', path: '/later', controller: () => HttpResponse.text('a,b', 200, { 'content-disposition': 'attachment' }), options: { cache: { maxAge: 30 } } },
  ];
  const { app } = testApp({ routes });
  const cacheControl = async (url: string, agent: string) => (await send(app, url, { headers: { 'user-agent': agent } })).headers.get('cache-control');

  assert.equal(await cacheControl('https://localhost/download', IE8), null, 'IE 8, attachment, HTTPS: removed');
  assert.equal(await cacheControl('https://localhost/cached', IE8), null, 'an explicit one goes too');
  // `(int) preg_replace('/(MSIE )(.*?);/', '$2', …)` is case-sensitive where the match is not: `msie 10.0;` reads as 0.
  assert.equal(await cacheControl('https://localhost/download', 'Mozilla/4.0 (compatible; msie 10.0; Windows NT 6.1)'), null);
  // Sensio's listener (after prepare) adds its directives to no Cache-Control: computed again.
  assert.equal(await cacheControl('https://localhost/later', IE8), 'max-age=30, private');

  assert.equal(await cacheControl('https://localhost/download', IE10), 'no-cache, private', 'IE 10 keeps it');
  assert.equal(await cacheControl('http://localhost/download', IE8), 'no-cache, private', 'plain HTTP keeps it');
  assert.equal(await cacheControl('https://localhost/inline', IE8), 'no-cache, private', 'no attachment: kept');
  assert.equal(await cacheControl('https://localhost/download', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0'), 'no-cache, private');
});

test('regression: a cookie\'s Max-Age was the rounded milliseconds left; Cookie::getMaxAge is the expiry\'s whole second minus time()\'s', (t) => {
  const second = 1_800_000_000;
  let now = second * 1000 + 900;
  t.mock.method(Date, 'now', () => now);
  // Symfony: expire = 1800000060 (format('U')), time() = 1800000000 → Max-Age=60, as the written expires says.
  assert.match(serializeCookie('a', 'b', { expires: new Date((second + 60) * 1000) }), /; expires=[^;]+ 08:01:00 GMT; Max-Age=60;/);
  now = second * 1000;
  assert.match(serializeCookie('a', 'b', { expires: new Date((second + 60) * 1000 + 900) }), /; expires=[^;]+ 08:01:00 GMT; Max-Age=60;/);
});

test('regression: a cookie expiring at or before 1970 was sent as a deletion (expires=1970, Max-Age=0); Cookie::expiresTimestamp makes it a session cookie', () => {
  assert.equal(serializeCookie('a', 'b', { expires: new Date(0) }), 'a=b; path=/; httponly; samesite=lax');
  assert.equal(serializeCookie('a', 'b', { expires: new Date(999) }), 'a=b; path=/; httponly; samesite=lax');
  assert.equal(serializeCookie('a', 'b', { expires: new Date(-86_400_000) }), 'a=b; path=/; httponly; samesite=lax');
  // A past expiry after 1970 is still written, with Max-Age=0 (getMaxAge never goes negative).
  assert.match(serializeCookie('a', 'b', { expires: new Date(1000) }), /^a=b; expires=Thu, 01-Jan-1970 00:00:01 GMT; Max-Age=0; path=\//);
});

test('a hostile User-Agent full of "MSIE " without ";" costs one pass, not one per occurrence', async () => {
  const { app } = testApp({ routes: [{ name: 'download', path: '/download', controller: () => HttpResponse.text('x', 200, { 'content-disposition': 'attachment' }) }] });
  const agent = 'MSIE '.repeat(20_000);
  const started = performance.now();
  const response = await send(app, 'https://localhost/download', { headers: { 'user-agent': agent } });
  assert.equal(response.headers.get('cache-control'), 'no-cache, private');
  assert.ok(performance.now() - started < 500, `took ${performance.now() - started} ms`);
});

test('regression: the cache option\'s expires and lastModified given as a date-time without an offset were read in the host\'s time zone; strtotime reads them in PHP\'s default zone, UTC', async () => {
  const { spawnSync } = await import('node:child_process');
  // A child process in a zone west of UTC: `new Date('2037-01-01 00:00:00')` is 05:00 GMT there.
  const script = `
    import { HttpResponse } from './src/index.ts';
    import { send, testApp } from './test/pipeline/harness.ts';
    const { app } = testApp({ routes: [
      { name: 'dated', path: '/dated', controller: () => HttpResponse.text('x'), options: { cache: { expires: '2037-01-01 00:00:00', lastModified: '2026-01-02T03:04:05' } } },
      { name: 'offset', path: '/offset', controller: () => HttpResponse.text('x'), options: { cache: { expires: '2037-01-01T00:00:00+02:00', lastModified: () => '2026-01-02' } } },
    ] });
    const out = [];
    for (const path of ['/dated', '/offset']) {
      const r = await send(app, path);
      out.push(r.headers.get('expires'), r.headers.get('last-modified'));
    }
    const notModified = await send(app, '/dated', { headers: { 'if-modified-since': 'Fri, 02 Jan 2026 03:04:05 GMT' } });
    out.push(String(notModified.status));
    console.log(JSON.stringify(out));
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, TZ: 'America/New_York' },
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout.trim().split('\n').pop()!), [
    'Thu, 01 Jan 2037 00:00:00 GMT', 'Fri, 02 Jan 2026 03:04:05 GMT',
    'Wed, 31 Dec 2036 22:00:00 GMT', 'Fri, 02 Jan 2026 00:00:00 GMT',
    '304',
  ]);
});

test('regression: json() kept a Content-Type of text/javascript (sent with a charset added); JsonResponse::update replaces exactly that one with application/json', () => {
  assert.equal(HttpResponse.json({ a: 1 }, 200, { 'content-type': 'text/javascript' }).headers.get('content-type'), 'application/json');
  assert.equal(HttpResponse.json({ a: 1 }, 200, { 'Content-Type': 'text/javascript' }).headers.get('content-type'), 'application/json');
  // Any other type given is the application's own, kept as it is.
  assert.equal(HttpResponse.json({ a: 1 }, 200, { 'content-type': 'text/javascript; charset=UTF-8' }).headers.get('content-type'), 'text/javascript; charset=UTF-8');
  assert.equal(HttpResponse.json({ a: 1 }, 200, { 'content-type': 'application/problem+json' }).headers.get('content-type'), 'application/problem+json');
});

test('regression: a 205 with a body was a 500 from app.fetch (Fetch allows a 205 no body) while Node sent the body; now every host sends the 205 without one', async () => {
  const routes: RouteDefinition[] = [{ name: 'reset', path: '/reset', controller: () => HttpResponse.html('<p>form reset</p>', 205) }];
  const { app } = testApp({ routes });
  const fetched = await send(app, '/reset');
  assert.equal(fetched.status, 205);
  assert.equal(await fetched.text(), '');
  assert.equal(fetched.headers.get('content-type'), null, 'no body, no Content-Type (as for a 204)');

  const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
  try {
    const served = await fetch(`http://127.0.0.1:${server.port}/reset`);
    assert.equal(served.status, 205);
    assert.equal(await served.text(), '');
  } finally {
    await server.close(1000);
  }
});
