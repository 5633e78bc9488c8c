import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse } from '../../src/http/response.ts';

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
