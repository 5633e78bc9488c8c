import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serializeCookie } from '../../src/http/cookies.ts';
import { HttpResponse, ResponseHeaders } from '../../src/http/response.ts';
import { send, testApp } from '../pipeline/harness.ts';

test('regression: a cookie without SameSite was sent without it; Symfony 5 Cookie defaults to samesite=lax', () => {
  assert.equal(serializeCookie('a', 'x'), 'a=x; path=/; httponly; samesite=lax');
  const headers = new ResponseHeaders();
  headers.setCookie('a', 'x');
  assert.deepEqual(headers.getSetCookies(), ['a=x; path=/; httponly; samesite=lax']);
  assert.equal(serializeCookie('a', 'x', { sameSite: null }), 'a=x; path=/; httponly', 'null: no attribute');
  assert.equal(serializeCookie('a', 'x', { sameSite: 'strict' }), 'a=x; path=/; httponly; samesite=strict');
});

test('clearCookie sends no SameSite unless told, as ResponseHeaderBag::clearCookie (sameSite null)', () => {
  const headers = new ResponseHeaders();
  headers.clearCookie('a');
  assert.match(headers.getSetCookies()[0]!, /^a=deleted; expires=[^;]+; Max-Age=0; path=\/; httponly$/);
  headers.clearCookie('b', { sameSite: 'lax' });
  assert.match(headers.getSetCookies()[1]!, /^b=deleted; .*; httponly; samesite=lax$/);
});

test('regression: setting a cookie removed every line of that name, whatever its path or domain (ResponseHeaderBag keys by domain, path, name)', () => {
  const headers = new ResponseHeaders();
  headers.clearCookie('pref', { path: '/admin' });
  headers.setCookie('pref', 'v');
  headers.setCookie('sid', 'A', { domain: 'a.example' });
  headers.setCookie('sid', 'B', { domain: 'b.example' });
  const lines = headers.getSetCookies();
  assert.equal(lines.length, 4, lines.join('\n'));
  assert.match(lines[0]!, /^pref=deleted; .*path=\/admin/);
  assert.equal(lines[1], 'pref=v; path=/; httponly; samesite=lax');
  assert.equal(lines[2], 'sid=A; path=/; domain=a.example; httponly; samesite=lax');
  assert.equal(lines[3], 'sid=B; path=/; domain=b.example; httponly; samesite=lax');
  // The same name, path and domain is replaced, a raw line included; an empty path is `/`.
  headers.append('set-cookie', 'pref=raw; Path=/');
  headers.setCookie('pref', 'w', { path: '' });
  assert.deepEqual(headers.getSetCookies().filter((l) => l.startsWith('pref=')).map((l) => l.split(';')[0]), ['pref=deleted', 'pref=w']);
});

test('regression: cookie values were encoded with encodeURIComponent, which keeps !\'()* and throws on a lone surrogate (rawurlencode)', () => {
  assert.equal(serializeCookie('a', "it's (ok)!*"), 'a=it%27s%20%28ok%29%21%2A; path=/; httponly; samesite=lax');
  assert.equal(serializeCookie('a', 'x\uD800y'), 'a=x%EF%BF%BDy; path=/; httponly; samesite=lax');
});

test('regression: an empty path, a capitalised SameSite and a fractional or negative Max-Age gave lines Symfony never writes', () => {
  assert.equal(serializeCookie('a', 'x', { path: '' }), 'a=x; path=/; httponly; samesite=lax');
  assert.equal(serializeCookie('a', 'x', { sameSite: 'Lax' }), 'a=x; path=/; httponly; samesite=lax');
  assert.equal(serializeCookie('a', 'x', { sameSite: 'None', secure: true }), 'a=x; path=/; secure; httponly; samesite=none');
  assert.match(serializeCookie('a', 'x', { maxAge: 1.5 }), /; Max-Age=1; path=\//);
  assert.match(serializeCookie('a', 'x', { maxAge: -5 }), /; Max-Age=0; path=\//);
  assert.match(serializeCookie('a', 'x', { expires: new Date(Date.now() + 60_000), maxAge: -1 }), /; Max-Age=0; path=\//);
  assert.throws(() => serializeCookie('a', 'x', { sameSite: 'Loose' as 'lax' }), /SameSite "Loose" is not lax, strict or none/);
});

test('regression: each setCookie parsed every line already set, so clearing the 1000 cookies a request may carry blocked the event loop for half a second', async () => {
  // Through the app: a logout that clears every cookie the client sent (the request keeps at most 1000).
  const names = Array.from({ length: 1000 }, (_, i) => `c${i}`);
  const { app } = testApp({ routes: [{ name: 'clear_cookies', path: '/clear-cookies', controller: (request) => {
    const response = new HttpResponse('bye');
    for (const name of request.cookies.keys()) response.headers.clearCookie(name);
    return response;
  } }] });
  const response = await send(app, '/clear-cookies', { headers: { cookie: names.map((n) => `${n}=x`).join('; ') } });
  const lines = response.headers.getSetCookie();
  assert.equal(lines.length, 1000);
  assert.deepEqual(lines.map((l) => l.slice(0, l.indexOf('='))), names);
  // Linear, not quadratic: counted in parses of a Set-Cookie line (split on ';'), not in time, so the
  // test does not depend on the machine. Before the fix, n cookies cost n²/2 parses.
  const headers = new ResponseHeaders();
  const split = String.prototype.split;
  let lineParses = 0;
  String.prototype.split = function (this: string, separator: unknown, limit?: number) {
    if (separator === ';') lineParses++;
    return Reflect.apply(split, this, [separator, limit]) as string[];
  } as typeof split;
  try {
    for (let i = 0; i < 4000; i++) headers.setCookie(`k${i}`, 'v', { path: '/p', domain: 'example.com' });
  } finally {
    String.prototype.split = split;
  }
  assert.ok(lineParses <= 3 * 4000, `${lineParses} line parses for 4000 cookies`);
  assert.equal(headers.getSetCookies().length, 4000);
  // A key set again still replaces its one line.
  headers.setCookie('k7', 'w', { path: '/p', domain: 'example.com' });
  assert.equal(headers.getSetCookies().length, 4000);
  assert.equal(headers.getSetCookies().filter((l) => l.startsWith('k7=')).join(), 'k7=w; path=/p; domain=example.com; httponly; samesite=lax');
});

test('regression: a Max-Age beyond what a Date holds wrote "expires=Invalid Date-undefined-undefined" into the Set-Cookie line', () => {
  assert.equal(serializeCookie('a', 'x', { maxAge: 1e16 }), 'a=x; expires=Sat, 13-Sep-275760 00:00:00 GMT; Max-Age=10000000000000000; path=/; httponly; samesite=lax');
  assert.equal(serializeCookie('a', 'x', { maxAge: -1e16 }), 'a=x; expires=Thu, 01-Jan-1970 00:00:00 GMT; Max-Age=0; path=/; httponly; samesite=lax');
});

test('regression: sameSite \'\' threw "not lax, strict or none"; Symfony\'s Cookie::withSameSite reads \'\' as null (no SameSite)', () => {
  assert.equal(serializeCookie('a', 'x', { sameSite: '' }), 'a=x; path=/; httponly');
  const headers = new ResponseHeaders();
  headers.clearCookie('b', { sameSite: '' });
  assert.match(headers.getSetCookies()[0]!, /^b=deleted; .*; path=\/; httponly$/);
});

test('the secure-default mark follows its cookie when another cookie is replaced or lines are set raw', () => {
  const headers = new ResponseHeaders();
  headers.setCookie('a', '1', { secure: false });
  headers.setCookie('b', '2');
  headers.append('set-cookie', 'c=3');
  headers.setCookie('a', '9', { secure: false });
  headers.setSecureDefault();
  assert.deepEqual(headers.getSetCookies(), ['b=2; path=/; secure; httponly; samesite=lax', 'c=3', 'a=9; path=/; httponly; samesite=lax']);
  headers.setSecureDefault();
  assert.equal(headers.getSetCookies()[0], 'b=2; path=/; secure; httponly; samesite=lax', 'applied once');
  headers.set('set-cookie', 'd=4');
  headers.setCookie('e', '5');
  headers.setSecureDefault();
  assert.deepEqual(headers.getSetCookies(), ['d=4', 'e=5; path=/; secure; httponly; samesite=lax']);
});

test('regression: setCookie(\'cart[42]\', …) threw "contains invalid characters" (a 500); Symfony\'s Cookie writes such a name as it is, and it is read back nested', async () => {
  const headers = new ResponseHeaders();
  headers.setCookie('cart[42]', '2');
  headers.setCookie('a(b)/c:d@e?f', 'x');
  assert.deepEqual(headers.getSetCookies(), ['cart[42]=2; path=/; httponly; samesite=lax', 'a(b)/c:d@e?f=x; path=/; httponly; samesite=lax']);
  // What Symfony would percent-encode (`=,; ` and controls) still throws instead of breaking the line.
  for (const name of ['a=b', 'a,b', 'a;b', 'a b', 'a\tb', '', 'caf\u00e9']) {
    assert.throws(() => headers.setCookie(name, 'y'), /The cookie name .* contains invalid characters\./, JSON.stringify(name));
  }
  const { app } = testApp({
    routes: [
      { name: 'set', path: '/set', controller: () => { const r = HttpResponse.text('ok'); r.headers.setCookie('cart[42]', '2'); return r; } },
      { name: 'read', path: '/read', controller: (r) => HttpResponse.json(r.cookies.get('cart')) },
    ],
  });
  const set = await send(app, '/set');
  assert.equal(set.status, 200);
  const cookie = set.headers.getSetCookie()[0]!.split(';')[0]!;
  assert.deepEqual(await (await send(app, '/read', { headers: { cookie } })).json(), { 42: '2' });
});
