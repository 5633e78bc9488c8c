import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, MemorySessionStore, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'read', path: '/read', controller: (r) => HttpResponse.json({ count: r.getSession().get('count') ?? null }) },
];

test('regression: an empty or "0" session cookie was answered with a clearing Set-Cookie on every request that used the session (Symfony clears only a truthy cookie)', async () => {
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore() });
  for (const cookie of ['IRMSSESSID=', 'IRMSSESSID', 'IRMSSESSID=0', 'other=1; IRMSSESSID=; x=2']) {
    const r = await send(app, '/read', { headers: { cookie } });
    assert.equal(r.status, 200, cookie);
    assert.deepEqual(await r.json(), { count: null }, cookie);
    assert.deepEqual(r.headers.getSetCookie(), [], `no Set-Cookie for ${cookie}`);
    assert.equal(r.headers.get('cache-control'), 'max-age=0, must-revalidate, private', cookie);
  }
  // A truthy cookie naming no session is still cleared, as in Symfony (`$requestSessionCookieId && $isSessionEmpty`).
  for (const cookie of ['IRMSSESSID=unknown', 'IRMSSESSID=' + 'a'.repeat(43), 'IRMSSESSID[x]=1']) {
    const cleared = setCookies(await send(app, '/read', { headers: { cookie } })).get('IRMSSESSID');
    assert.ok(cleared, cookie);
    assert.match(cleared.line, /^IRMSSESSID=deleted; expires=.*; Max-Age=0; path=\/; httponly; samesite=lax$/, cookie);
  }
});
