import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { records, send, testApp } from '../pipeline/harness.ts';
import { kernelRequest } from '../support/request.ts';

/** What a controller sees: the query, body parameters and cookies, as JSON. */
const routes: RouteDefinition[] = [
  { name: 'echo', path: '/echo', controller: (r) => HttpResponse.json({ query: r.query.all(), request: r.request.all(), cookies: r.cookies.all(), uri: r.getUri() }) },
  { name: 'session', path: '/session', controller: (r) => HttpResponse.json({ visits: r.getSession().get('visits') ?? 0 }) },
];

const form = (app: ReturnType<typeof testApp>['app'], body: string, path = '/echo') =>
  send(app, path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

const warnings = (lines: string[]) => records(lines).filter((r) => r.level_name === 'WARNING');

test('regression: each a[] after a[x] scanned every key of a (a 59 KB form body blocked the event loop for 4 s, 234 KB for 106 s); parsing is linear and stops at PHP\'s max_input_vars, 1000, with one WARNING', { timeout: 10_000 }, async () => {
  const { app, lines } = testApp({ env: 'prod', routes, logFormat: 'json' });
  const pairs = 'a[x]=1' + '&a[]=1'.repeat(34_000); // about 200 KB
  assert.ok(pairs.length > 200_000);

  const viaForm = await form(app, pairs);
  assert.equal(viaForm.status, 200);
  const a = (await viaForm.json()).request.a as Record<string, string>;
  assert.equal(Object.keys(a).length, 1000, 'a[x] and 999 appends: 1000 variables');
  assert.equal(a['998'], '1');
  assert.equal(a['999'], undefined, 'the rest is dropped');
  assert.equal(warnings(lines).length, 1, 'one WARNING for the request, not one per dropped variable');
  assert.match(warnings(lines)[0]!.message, /Input variables exceeded 1000/);

  lines.length = 0;
  const viaQuery = await send(app, `/echo?${pairs}`);
  assert.equal(Object.keys((await viaQuery.json()).query.a).length, 1000);
  assert.equal(warnings(lines).length, 1);
  assert.equal(warnings(lines)[0]!.context.source, 'query string');

  // Cookies are parsed linearly too (and stop at the same limit: the next test).
  const cookie = 'a[x]=1' + '; a[]=1'.repeat(34_000);
  assert.equal(Object.keys(kernelRequest({ headers: { cookie } }).cookies.get('a') as object).length, 1000);

  lines.length = 0;
  const atTheLimit = await send(app, `/echo?${'&v[]=1'.repeat(1000)}`);
  assert.equal((await atTheLimit.json()).query.v.length, 1000);
  assert.equal(warnings(lines).length, 0, '1000 variables are within the limit');
  // A timer turn, so that the runner's timeout fires after a parse that blocked the event loop (a
  // synchronous parse cannot be interrupted: without this turn the test would pass, only late).
  await new Promise((resolve) => setTimeout(resolve, 0));
});

test('regression: a Cookie header had no max_input_vars (PHP counts $_COOKIE too); cookies past 1000 are dropped with one WARNING', async () => {
  const { app, lines } = testApp({ env: 'prod', routes, logFormat: 'json' });
  const names = Array.from({ length: 1200 }, (_, i) => `c${i}=v${i}`);
  const r = await send(app, '/echo', { headers: { cookie: names.join('; ') } });
  const cookies = (await r.json()).cookies as Record<string, string>;
  assert.equal(Object.keys(cookies).length, 1000);
  assert.equal(cookies.c999, 'v999');
  assert.equal(cookies.c1000, undefined, 'the rest is dropped');
  assert.equal(warnings(lines).length, 1);
  assert.equal(warnings(lines)[0]!.context.source, 'cookie header');

  lines.length = 0;
  // As in PHP, parts with no name are not counted: 1000 cookies among empty parts are all kept.
  const atTheLimit = await send(app, '/echo', { headers: { cookie: names.slice(0, 1000).join('; ;') } });
  assert.equal(Object.keys((await atTheLimit.json()).cookies).length, 1000);
  assert.equal(warnings(lines).length, 0, '1000 cookies are within the limit');
});

test('regression: multipart bodies had no max_input_vars either; fields past 1000 are dropped with one WARNING', { timeout: 10_000 }, async () => {
  const { app, lines } = testApp({ env: 'prod', routes, logFormat: 'json' });
  const body = new FormData();
  body.append('a[x]', '1');
  for (let i = 0; i < 3000; i++) body.append('a[]', '1');
  const r = await send(app, '/echo', { method: 'POST', body });
  assert.equal(Object.keys((await r.json()).request.a).length, 1000);
  assert.equal(warnings(lines).length, 1);
  assert.equal(warnings(lines)[0]!.context.source, 'multipart body');
});

test('regression: one malformed % escape turned off all decoding of a value or name ("50%+off" stayed as sent, "+" included); they decode as PHP\'s urldecode', async () => {
  const { app } = testApp({ routes });
  const query = async (qs: string) => (await (await send(app, `/echo?${qs}`)).json()).query;
  assert.deepEqual(await query('q=50%+off'), { q: '50% off' });
  assert.deepEqual(await query('q=a+b%20c%'), { q: 'a b c%' });
  assert.deepEqual(await query('tag=c%2B%2B+%26+more%'), { tag: 'c++ & more%' });
  assert.deepEqual(await query('q=%C3%A9t%C3%A9%'), { q: 'été%' });
  assert.deepEqual(await query('q=%E9t%C3%A9'), { q: '\uFFFDté' }, 'a byte that is no UTF-8 (Latin-1 é) becomes U+FFFD');
  assert.deepEqual(await query('a%ZZ+b=1'), { 'a%ZZ_b': '1' }, 'names too (then PHP\'s name rules: space → _)');
  assert.deepEqual((await (await form(app, 'q=50%+off')).json()).request, { q: '50% off' });
  assert.match((await (await send(app, '/echo?q=50%+off')).json()).uri, /\?q=50%25%20off$/, 'getUri decodes as Symfony\'s HeaderUtils::parseQuery (urldecode)');
  // Cookies are rawurldecoded: `+` stays a plus.
  const cookies = await (await send(app, '/echo', { headers: { cookie: 'a=x+y; b=50%; c=%2B%20; d=%41%' } })).json();
  assert.deepEqual(cookies.cookies, { a: 'x+y', b: '50%', c: '+ ', d: 'A%' });
});

test('regression: query and form names kept dots, spaces and broken brackets ("?user.id=5" was "user.id"); they follow PHP\'s variable-name rules', async () => {
  const { app } = testApp({ routes });
  const query = async (qs: string) => (await (await send(app, `/echo?${qs}`)).json()).query;
  assert.deepEqual(await query('user.id=5'), { user_id: '5' });
  assert.deepEqual(await query('a+b=1&c%20d=2'), { a_b: '1', c_d: '2' });
  assert.deepEqual(await query('+a=1'), { a: '1' }, 'leading spaces dropped');
  assert.deepEqual(await query('=1&[x]=2&+=3&b=4'), { b: '4' }, 'empty names dropped');
  assert.deepEqual(await query('a[b=1'), { a_b: '1' }, 'an unclosed [ becomes _');
  assert.deepEqual(await query('a[b.c d=1'), { a_b_c_d: '1' }, 'and so do . and space after it (PHP 8)');
  assert.deepEqual(await query('a[b]c=1'), { a: { b: '1' } }, 'text after ] ignored');
  assert.deepEqual(await query('a[x][y=1'), { a: { x: '1' } }, 'an unclosed [ after a complete group: the rest ignored');
  assert.deepEqual(await query('a[+]=1&a[+]=2&a[+b]=3'), { a: { 0: '1', 1: '2', ' b': '3' } }, 'a[ ] appends; a[ b] keeps its blank');
  assert.deepEqual(await query('a.b[c.d]=1'), { a_b: { 'c.d': '1' } }, 'only the base name is changed');
  assert.deepEqual(await query('..Host-x=1&__Host-y=2'), { '__Host-y': '2' }, 'no name becomes __Host- by the change');
  assert.deepEqual(await query('a%00b=1'), { a: '1' }, 'a NUL ends the name');
  assert.deepEqual((await (await form(app, 'user.name=ann&tags[+]=a')).json()).request, { user_name: 'ann', tags: ['a'] });
});

test('regression: request cookies stripped quotes, trimmed values, dropped valueless cookies and kept dots and brackets in names; they are read as $_COOKIE', async () => {
  const { app } = testApp({ routes });
  const cookies = async (header: string) => (await (await send(app, '/echo', { headers: { cookie: header } })).json()).cookies;
  assert.deepEqual(await cookies('a.b=1; c d=2'), { a_b: '1', c_d: '2' });
  assert.deepEqual(await cookies('a[x]=1; a[y]=2'), { a: { x: '1', y: '2' } });
  assert.deepEqual(await cookies('a="quoted"'), { a: '"quoted"' });
  assert.deepEqual(await cookies('a=1 ;b=2'), { a: '1 ', b: '2' });
  assert.deepEqual(await cookies('flag; =x; ;b=1'), { flag: '', b: '1' });
  assert.deepEqual(await cookies('a=1; a=2; a.b=3; a_b=4'), { a: '1', a_b: '3' }, 'the first cookie of a name wins, after the name rules');
  assert.deepEqual(await cookies('a%2Eb=1'), { 'a%2Eb': '1' }, 'names are not decoded');
  // A nested session cookie (an object, not an id) is no session id: no 500.
  assert.equal((await send(app, '/session', { headers: { cookie: 'IRMSSESSID[x]=abc' } })).status, 200);
  assert.equal(kernelRequest({ headers: { cookie: 'IRMSSESSID=abc.def' } }).cookies.get('IRMSSESSID'), 'abc.def', 'dots in values stay');
});

test('regression: an empty _method override was ignored (the request stayed POST); as Symfony it is Invalid method override "" (400)', async () => {
  assert.throws(() => kernelRequest({ method: 'POST', target: '/?_method=' }).method, { message: 'Invalid method override "".' });
  const { app } = testApp({ env: 'prod', routes });
  assert.equal((await form(app, '_method=')).status, 400);
  assert.equal((await send(app, '/echo?_method=', { method: 'POST' })).status, 400);
  assert.equal(kernelRequest({ method: 'POST', target: '/?_method=put', headers: { 'x-http-method-override': '' } }).method, 'PUT', 'an empty header still falls through to _method');
});

test('regression: a method override was upper-cased beyond ASCII (`_method=poſt` became POST, `paßt` PASST); as PHP\'s strtoupper, only a-z are, so it is Invalid method override (400)', async () => {
  assert.throws(() => kernelRequest({ method: 'POST', target: `/?_method=${encodeURIComponent('poſt')}` }).method, { message: 'Invalid method override "POſT".' });
  assert.throws(() => kernelRequest({ method: 'POST', target: `/?_method=${encodeURIComponent('optıonſ')}` }).method, { message: 'Invalid method override "OPTıONſ".' });
  assert.throws(() => kernelRequest({ method: 'POST', headers: { 'x-http-method-override': 'pa\u00dft' } }).method, { message: 'Invalid method override "PA\u00dfT".' });
  assert.equal(kernelRequest({ method: 'POST', target: '/?_method=Delete' }).method, 'DELETE', 'ASCII letters are still upper-cased');
  const { app } = testApp({ env: 'prod', routes });
  assert.equal((await form(app, `_method=${encodeURIComponent('poſt')}`)).status, 400);
  assert.equal((await send(app, '/echo', { method: 'POST', headers: { 'x-http-method-override': 'pa\u00dft' } })).status, 400);
});

test('regression: an escaped byte-order mark (%EF%BB%BF) was dropped from names and values, so `%EF%BB%BF_method=DELETE` overrode POST; PHP\'s urldecode keeps it (U+FEFF), as it keeps one that starts a form body', async () => {
  const query = kernelRequest({ target: '/?%EF%BB%BFa=1&b=x%EF%BB%BFy&c=%EF%BB%BF' }).query;
  assert.deepEqual({ ...query.all() }, { '\uFEFFa': '1', b: 'x\uFEFFy', c: '\uFEFF' });
  assert.equal(kernelRequest({ method: 'POST', target: '/?%EF%BB%BF_method=DELETE' }).method, 'POST', 'the name is no `_method`');
  assert.throws(() => kernelRequest({ method: 'POST', target: '/?_method=%EF%BB%BFDELETE' }).method, { message: 'Invalid method override "\uFEFFDELETE".' });

  const { app } = testApp({ env: 'prod', routes: [{ name: 'm', path: '/m', controller: (r) => HttpResponse.json({ method: r.method, request: r.request.all() }) }] });
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  const body = new Uint8Array([...bom, ...new TextEncoder().encode('_method=DELETE&x=1')]);
  const r = await send(app, '/m', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  assert.deepEqual(await r.json(), { method: 'POST', request: { '\uFEFF_method': 'DELETE', x: '1' } }, 'a raw mark before the first name stays part of it');
});
