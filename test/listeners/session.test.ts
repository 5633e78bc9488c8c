import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, MemorySessionStore, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'plain', path: '/plain', controller: () => HttpResponse.text('no session here') },
  { name: 'write', path: '/write', controller: (r) => { r.getSession().set('count', ((r.getSession().get('count') as number) ?? 0) + 1); return HttpResponse.text('written'); } },
  { name: 'read', path: '/read', controller: (r) => HttpResponse.json({ count: r.getSession().get('count') ?? null }) },
  { name: 'clear', path: '/clear', controller: (r) => { r.getSession().clear(); return HttpResponse.text('cleared'); } },
  { name: 'stateless', path: '/stateless', controller: (r) => { r.getSession().set('x', 1); return HttpResponse.text('x'); }, options: { stateless: true } },
  { name: 'cached', path: '/cached', controller: (r) => { r.getSession().get('x'); return HttpResponse.text('x', 200, { 'cache-control': 'public, max-age=600' }); } },
  { name: 'own_cache', path: '/own-cache', controller: (r) => { r.getSession().set('x', 1); return HttpResponse.text('x', 200, { 'cache-control': 'public, max-age=600', 'Symfony-Session-NoAutoCacheControl': 'true' }); } },
];

function setup() {
  const store = new MemorySessionStore();
  const { app, lines } = testApp({ routes, sessionStore: store });
  return { app, store, lines };
}

test('requests that never touch the session get no cookie and store nothing', async () => {
  const { app, store } = setup();
  for (let i = 0; i < 50; i++) {
    const r = await send(app, i % 2 ? '/plain' : '/nowhere');
    assert.equal(r.headers.getSetCookie().length, 0);
  }
  const r = await send(app, '/plain');
  assert.equal(r.headers.get('cache-control'), 'no-cache, private');
  assert.equal(store.size, 0);
});

test('a session that is used gets a cookie with HttpOnly, SameSite=Lax, Path=/ and private caching', async () => {
  const { app, store } = setup();
  const r = await send(app, '/write');
  const cookie = setCookies(r).get('IRMSSESSID');
  assert.ok(cookie, 'session cookie set');
  assert.match(cookie.line, /; path=\/; httponly; samesite=lax$/);
  assert.doesNotMatch(cookie.line, /secure/);
  assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(r.headers.get('cache-control'), 'max-age=0, must-revalidate, private');
  assert.ok(r.headers.get('expires'));
  assert.equal(store.size, 1);

  // The next request with the cookie reads the session; the cookie is not sent again.
  const again = await send(app, '/read', { headers: { cookie: `IRMSSESSID=${cookie.value}` } });
  assert.deepEqual(await again.json(), { count: 1 });
  assert.equal(again.headers.getSetCookie().length, 0);
  assert.equal(again.headers.get('cache-control'), 'max-age=0, must-revalidate, private');
});

test('the cookie is Secure on HTTPS; the cookie name is configurable', async () => {
  const { app } = testApp({ routes, sessionCookieName: 'SID' });
  const r = await send(app, 'https://localhost/write');
  const cookie = setCookies(r).get('SID');
  assert.ok(cookie);
  assert.match(cookie.line, /; secure; httponly; samesite=lax$/);
});

test('a client-chosen unknown id is never adopted', async () => {
  const { app, store } = setup();
  const chosen = 'attackerchosensessionid0123456789';
  const r = await send(app, '/write', { headers: { cookie: `IRMSSESSID=${chosen}` } });
  const cookie = setCookies(r).get('IRMSSESSID')!;
  assert.notEqual(cookie.value, chosen);
  assert.equal(store.read(chosen), null);
  // Malformed ids are not even looked up.
  const odd = await send(app, '/read', { headers: { cookie: 'IRMSSESSID=../../etc/passwd' } });
  assert.deepEqual(await odd.json(), { count: null });
});

test('a session emptied during the request is removed and its cookie cleared', async () => {
  const { app, store } = setup();
  const id = setCookies(await send(app, '/write')).get('IRMSSESSID')!.value;
  const r = await send(app, '/clear', { headers: { cookie: `IRMSSESSID=${id}` } });
  const cleared = setCookies(r).get('IRMSSESSID')!;
  assert.equal(cleared.value, '');
  assert.match(cleared.line, /^IRMSSESSID=deleted; expires=.*; Max-Age=0; path=\/; httponly; samesite=lax$/);
  assert.equal(store.size, 0);
});

test('a public response that used the session becomes private with max-age=0', async () => {
  const { app } = setup();
  const r = await send(app, '/cached');
  assert.equal(r.headers.get('cache-control'), 'max-age=0, must-revalidate, private');
});

test('Symfony-Session-NoAutoCacheControl keeps the caching the response set, and is never sent', async () => {
  const { app } = setup();
  const r = await send(app, '/own-cache');
  assert.equal(r.headers.get('cache-control'), 'max-age=600, public', 'the directives the app set, rendered sorted as ResponseHeaderBag does');
  assert.equal(r.headers.get('symfony-session-noautocachecontrol'), null);
  assert.ok(setCookies(r).get('IRMSSESSID'), 'the session is still saved');
  const plain = await send(app, '/cached');
  assert.equal(plain.headers.get('cache-control'), 'max-age=0, must-revalidate, private', 'without it the session makes the response private');
});

test('using the session on a stateless route is an error in debug mode and a warning otherwise', async () => {
  const { app } = setup();
  const r = await send(app, '/stateless');
  assert.equal(r.status, 500);
  const { app: prod, lines } = testApp({ routes, env: 'prod', debug: false });
  const p = await send(prod, '/stateless');
  assert.equal(p.status, 200);
  assert.ok(lines.some((l) => l.includes('Session was used while the request was declared stateless.')));
});

test('an asynchronous session store works end to end', async () => {
  const inner = new MemorySessionStore();
  const store = {
    read: (id: string) => Promise.resolve(inner.read(id)),
    write: (id: string, data: string) => Promise.resolve(inner.write(id, data)),
    destroy: (id: string) => Promise.resolve(inner.destroy(id)),
  };
  const { app } = testApp({
    routes: [
      ...routes,
      { name: 'async_read', path: '/async-read', controller: async (r) => { const { startSession } = await import('../../src/index.ts'); await startSession(r); return HttpResponse.json({ count: r.getSession().get('count') ?? null }); } },
    ],
    sessionStore: store,
  });
  const id = setCookies(await send(app, '/write')).get('IRMSSESSID')!.value;
  const r = await send(app, '/async-read', { headers: { cookie: `IRMSSESSID=${id}` } });
  assert.deepEqual(await r.json(), { count: 1 });
});
