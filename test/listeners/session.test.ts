import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getMember, HttpResponse, listener, logIn, logOut, MemorySessionStore, type App, type RouteDefinition } from '../../src/index.ts';
import { gate, send, setCookies, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'plain', path: '/plain', controller: () => HttpResponse.text('no session here') },
  { name: 'write', path: '/write', controller: (r) => { r.getSession().set('count', ((r.getSession().get('count') as number) ?? 0) + 1); return HttpResponse.text('written'); } },
  { name: 'read', path: '/read', controller: (r) => HttpResponse.json({ count: r.getSession().get('count') ?? null }) },
  { name: 'read_seen', path: '/read-seen', controller: (r) => HttpResponse.json({ seen: r.getSession().get('seen') ?? null }) },
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

test('regression: a session cookie name with a dot was accepted, and its session was lost on every request (PHP cookie rules read my.sid as my_sid)', async () => {
  for (const [option, name] of [['sessionCookieName', 'my.sid'], ['rememberMeCookieName', 'remember.me']] as const) {
    assert.throws(() => testApp({ routes, [option]: name }), /contains illegal character\(s\).*"\." into "_"/, option);
  }
  // The names PHP keeps as they are still work end to end.
  const { app } = testApp({ routes, sessionCookieName: 'my-sid_1' });
  const cookie = setCookies(await send(app, '/write')).get('my-sid_1')!;
  const again = await send(app, '/read', { headers: { cookie: `my-sid_1=${cookie.value}` } });
  assert.deepEqual(await again.json(), { count: 1 });
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

test('regression: a private response with only an Expires lost its expiry once it used the session (Response::getMaxAge falls back on Expires)', async () => {
  const inAnHour = new Date(Date.now() + 3600_000);
  const { app } = testApp({
    routes: [
      { name: 'expires', path: '/expires', controller: (r) => { r.getSession().set('x', 1); return HttpResponse.text('x'); }, options: { cache: { expires: inAnHour } } },
      { name: 'past', path: '/past', controller: (r) => { r.getSession().set('x', 1); return HttpResponse.text('x', 200, { expires: 'Thu, 01 Jan 1970 00:00:00 GMT' }); } },
      { name: 'junk', path: '/junk', controller: (r) => { r.getSession().set('x', 1); return HttpResponse.text('x', 200, { expires: '0' }); } },
    ],
  });
  const r = await send(app, '/expires');
  const maxAge = Number(/^max-age=(\d+), must-revalidate, private$/.exec(r.headers.get('cache-control') ?? '')?.[1]);
  assert.ok(maxAge > 3590 && maxAge <= 3600, `max-age follows Expires: ${r.headers.get('cache-control')}`);
  assert.ok(Math.abs(Date.parse(r.headers.get('expires')!) - inAnHour.getTime()) <= 2000, 'Expires stays about where it was');
  for (const path of ['/past', '/junk']) {
    const old = await send(app, path);
    assert.equal(old.headers.get('cache-control'), 'max-age=0, must-revalidate, private', `${path}: an expiry in the past is max-age=0, never negative`);
  }
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

test('regression: a response set at kernel.request on a stateless route used the session unnoticed (the stateless check read only the attribute set at kernel.controller)', async () => {
  const early: RouteDefinition = { name: 'early', path: '/early', controller: () => HttpResponse.text('never'), options: { stateless: true } };
  const answerEarly = listener<'kernel.request'>('App::answerEarly', 'answers before the controller', (event) => {
    if (event.request.pathInfo !== '/early') return;
    event.request.getSession().set('seen', true);
    event.setResponse(HttpResponse.text('early'));
  });
  const listeners = [{ hook: 'kernel.request' as const, listener: answerEarly, placement: { priority: -1000 } }];
  const debug = testApp({ routes: [early], listeners }).app;
  assert.equal((await send(debug, '/early')).status, 500, 'UnexpectedSessionUsageException in debug mode');
  const { app: prod, lines } = testApp({ routes: [early], listeners, env: 'prod', debug: false });
  const p = await send(prod, '/early');
  assert.equal(await p.text(), 'early');
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

/** An app with logins, a page that writes the session for anonymous visitors, and slow pages held by gates. */
function memberApp(store: MemorySessionStore) {
  const entered = gate();
  const release = gate();
  const slow = async () => {
    entered.open();
    await release.opened;
  };
  const memberRoutes: RouteDefinition[] = [
    { name: 'login', path: '/login', methods: ['POST'], controller: (r) => { logIn(r, { memberId: r.request.getString('member'), irmsToken: 'tok' }); return HttpResponse.text('in'); } },
    { name: 'logout', path: '/logout', controller: (r) => { logOut(r); return HttpResponse.text('bye'); } },
    { name: 'me', path: '/me', controller: (r) => HttpResponse.text(getMember(r)?.memberId ?? 'anonymous') },
    { name: 'cart', path: '/cart', controller: (r) => { const s = r.getSession(); s.set('n', ((s.get('n') as number) ?? 0) + 1); return HttpResponse.json({ n: s.get('n') }); } },
    // Long-poll style: authenticated from the session (read), then waits.
    { name: 'slow_read', path: '/slow-read', controller: async (r) => { await slow(); return HttpResponse.text(`slow for ${getMember(r)?.memberId}`); }, options: { requiresLogin: true } },
    // The same, but it also changes the session when it finishes.
    { name: 'slow_write', path: '/slow-write', controller: async (r) => { await slow(); r.getSession().set('last_seen', 'slow'); return HttpResponse.text('written'); }, options: { requiresLogin: true } },
  ];
  const { app } = testApp({ routes: memberRoutes, sessionStore: store, env: 'prod', debug: false, environment: { APP_SECRET: 'test-secret' } });
  const login = async (member: string) => {
    const r = await send(app, '/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ member }) });
    assert.equal(r.status, 200);
    return setCookies(r).get('IRMSSESSID')!.value;
  };
  const me = async (sid: string) => (await send(app, '/me', { headers: { cookie: `IRMSSESSID=${sid}` } })).text();
  return { app, login, me, entered: entered.opened, release: release.open };
}

test('regression: a flood of anonymous sessions does not log a member out (F1: LRU eviction at maxCount evicted members)', async () => {
  const store = new MemorySessionStore({ maxCount: 5 });
  const { app, login, me } = memberApp(store);
  const victim = await login('victim');
  assert.equal(await me(victim), 'victim');
  let last = '';
  for (let i = 0; i < 50; i++) {
    const r = await send(app, '/cart');
    last = setCookies(r).get('IRMSSESSID')!.value;
    assert.ok(store.size <= 5, `the bound holds (${store.size})`);
  }
  assert.equal(await me(victim), 'victim', 'still logged in after 50 anonymous sessions in a store of 5');
  const again = await send(app, '/cart', { headers: { cookie: `IRMSSESSID=${last}` } });
  assert.deepEqual(await again.json(), { n: 2 }, 'anonymous sessions still work (the newest are kept)');
});

test('regression: members are evicted only when no anonymous session is left, least recently used first', async () => {
  const store = new MemorySessionStore({ maxCount: 3 });
  const { app, login, me } = memberApp(store);
  const m1 = await login('m1');
  const m2 = await login('m2');
  const guest = setCookies(await send(app, '/cart')).get('IRMSSESSID')!.value;
  const m3 = await login('m3'); // the store is full: the anonymous session makes room, not m1
  assert.equal(store.read(guest), null);
  assert.equal(await me(m2), 'm2');
  assert.equal(await me(m1), 'm1');
  assert.equal(await me(m3), 'm3');
  // Only members left, last used in the order m2, m1, m3: the next login evicts m2.
  const m4 = await login('m4');
  assert.equal(store.size, 3);
  assert.equal(await me(m2), 'anonymous');
  assert.deepEqual([await me(m1), await me(m3), await me(m4)], ['m1', 'm3', 'm4']);
});

for (const [kind, path] of [['only read', '/slow-read'], ['also changed', '/slow-write']] as const) {
  test(`regression: a request in flight at logout that ${kind} the session does not bring the old session id back`, async () => {
    const store = new MemorySessionStore();
    const { app, login, me, entered, release } = memberApp(store);
    const sid = await login('m1');
    const cookie = { headers: { cookie: `IRMSSESSID=${sid}` } };
    const inFlight = send(app, path, cookie);
    await entered; // the slow request has loaded the session and authenticated the member

    const logout = await send(app, '/logout', cookie);
    assert.equal(logout.status, 302, 'the firewall logs out');
    assert.equal(setCookies(logout).get('IRMSSESSID')!.value, '', 'logout clears the cookie');
    assert.equal(await me(sid), 'anonymous');

    release();
    const late = await inFlight;
    assert.equal(late.status, 200);
    await late.text();
    assert.equal(late.headers.getSetCookie().length, 0, 'the late response sets no session cookie');
    assert.equal(late.headers.get('cache-control'), 'max-age=0, must-revalidate, private', 'it is still private: the session was used');

    assert.equal(await me(sid), 'anonymous', 'the logged-out id stays logged out');
    assert.equal(store.read(sid), null, 'the destroyed id was not re-created');
  });
}

test('a session that is only read gets the same response as before and stays alive', async () => {
  let now = 0;
  const store = new MemorySessionStore({ idleSeconds: 10, now: () => now });
  const { app, login } = memberApp(store);
  const sid = await login('m1');
  for (let i = 0; i < 5; i++) {
    now += 6_000; // longer than half the idle time: only refreshed lifetimes keep the session alive
    const r = await send(app, '/me', { headers: { cookie: `IRMSSESSID=${sid}` } });
    assert.equal(await r.text(), 'm1');
    assert.equal(r.headers.getSetCookie().length, 0, 'the client already has the cookie');
    assert.equal(r.headers.get('cache-control'), 'max-age=0, must-revalidate, private');
  }
});

for (const [how, endSession] of [
  // Each anonymous logout destroys a stored id: maxCount of them pushed the logged-out id out of the store's destroyed list.
  ['logged out, then pushed out of the destroyed list by other logouts', async (app: App, sid: string, store: MemorySessionStore) => {
    await send(app, '/logout', { headers: { cookie: `IRMSSESSID=${sid}` } });
    for (let i = 0; i < 2 * store.maxCount; i++) {
      const guest = setCookies(await send(app, '/cart')).get('IRMSSESSID')!.value;
      await send(app, '/logout', { headers: { cookie: `IRMSSESSID=${guest}` } });
    }
  }],
  ['expired', async (_app: App, _sid: string, store: MemorySessionStore, now: { ms: number }) => {
    now.ms += store.idleMs;
  }],
  ['evicted', async (app: App, _sid: string, store: MemorySessionStore) => {
    for (let i = 0; i < store.maxCount; i++) {
      const r = await send(app, '/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ member: `other${i}` }) });
      assert.equal(r.status, 200);
    }
  }],
] as const) {
  test(`regression: a member session ${how} came back, member included, through the late write of a request in flight`, async () => {
    const now = { ms: 0 };
    const store = new MemorySessionStore({ maxCount: 5, idleSeconds: 60, now: () => now.ms });
    const { app, login, me, entered, release } = memberApp(store);
    const sid = await login('m1');
    const inFlight = send(app, '/slow-write', { headers: { cookie: `IRMSSESSID=${sid}` } });
    await entered; // loaded the session and authenticated the member

    await endSession(app, sid, store, now);
    assert.equal(await me(sid), 'anonymous');

    release();
    const late = await inFlight;
    assert.equal(late.status, 200);
    await late.text();
    assert.equal(late.headers.getSetCookie().length, 0, 'the late response sets no session cookie');
    assert.equal(await me(sid), 'anonymous', 'the old cookie does not log anyone in again');
    assert.equal(store.read(sid), null);
  });
}

/** An app whose `/hold/:key` pages load the session, wait until `release()`, then set or remove a key. */
function concurrentApp() {
  const release = gate();
  let entered = 0;
  const routes: RouteDefinition[] = [
    { name: 'seed', path: '/seed', controller: (r) => { r.getSession().set('seed', 1); r.getSession().set('gone', 1); return HttpResponse.text('seeded'); } },
    { name: 'hold', path: '/hold/:op/:key', controller: async (r) => {
      const session = r.getSession();
      session.get('seed');
      entered++;
      await release.opened;
      if (r.attributes.get('op') === 'set') session.set(r.attributes.getString('key'), true);
      else session.remove(r.attributes.getString('key'));
      return HttpResponse.text('done');
    } },
    { name: 'keys', path: '/keys', controller: (r) => HttpResponse.json(Object.keys(r.getSession().all()).sort()) },
  ];
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore(), env: 'prod', debug: false });
  return { app, release: release.open, entered: () => entered };
}

test('regression: concurrent requests on one session lost each other\'s changes (the last one saved won)', async () => {
  const { app, release, entered } = concurrentApp();
  const sid = setCookies(await send(app, '/seed')).get('IRMSSESSID')!.value;
  const cookie = { headers: { cookie: `IRMSSESSID=${sid}` } };
  const keys = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`);
  const pending = [...keys.map((key) => send(app, `/hold/set/${key}`, cookie)), send(app, '/hold/remove/gone', cookie)];
  while (entered() < pending.length) await new Promise((resolve) => setImmediate(resolve));
  release(); // every request loaded the same data; each now changes its own key
  for (const r of await Promise.all(pending)) {
    assert.equal(await r.text(), 'done');
    assert.equal(r.headers.getSetCookie().length, 0, 'the session id is unchanged');
  }
  assert.deepEqual(await (await send(app, '/keys', cookie)).json(), [...keys, 'seed'], 'every key set is kept, the removed one is gone');
});

test('regression: two concurrent logins on one session left two authenticated ids; the second destroys the first one\'s id', async () => {
  const store = new MemorySessionStore();
  const held = gate();
  let entered = 0;
  const routes: RouteDefinition[] = [
    { name: 'cart', path: '/cart', controller: (r) => { r.getSession().set('n', 1); return HttpResponse.text('cart'); } },
    { name: 'slow_login', path: '/slow-login/:member', controller: async (r) => {
      r.getSession().get('n');
      entered++;
      await held.opened;
      logIn(r, { memberId: r.attributes.getString('member'), irmsToken: 'tok' });
      return HttpResponse.text('in');
    } },
    { name: 'me', path: '/me', controller: (r) => HttpResponse.text(getMember(r)?.memberId ?? 'anonymous') },
  ];
  const { app } = testApp({ routes, sessionStore: store, env: 'prod', debug: false, environment: { APP_SECRET: 'test-secret' } });
  const me = async (sid: string) => (await send(app, '/me', { headers: { cookie: `IRMSSESSID=${sid}` } })).text();
  const sid = setCookies(await send(app, '/cart')).get('IRMSSESSID')!.value;
  const first = send(app, '/slow-login/m1', { headers: { cookie: `IRMSSESSID=${sid}` } });
  const second = send(app, '/slow-login/m2', { headers: { cookie: `IRMSSESSID=${sid}` } });
  while (entered < 2) await new Promise((resolve) => setImmediate(resolve));
  held.open();
  const [id1, id2] = (await Promise.all([first, second])).map((r) => setCookies(r).get('IRMSSESSID')!.value);
  assert.notEqual(id1, id2);
  assert.equal(await me(id2), 'm2', 'the login saved last holds the session');
  assert.equal(await me(id1), 'anonymous', 'the id of the first login no longer logs anyone in');
  assert.equal(await me(sid), 'anonymous');
});

test('regression: a fractional or suffixed max-age on a page that used the session was kept as written; Response::getMaxAge casts it with (int)', async () => {
  const { app } = testApp({
    routes: [
      { name: 'fraction', path: '/fraction', controller: (r) => { r.getSession().get('x'); return HttpResponse.text('x', 200, { 'cache-control': 'max-age=60.5' }); } },
      { name: 'suffix', path: '/suffix', controller: (r) => { r.getSession().get('x'); return HttpResponse.text('x', 200, { 'cache-control': 's-maxage=10abc' }); } },
    ],
    sessionStore: new MemorySessionStore(),
  });
  assert.equal((await send(app, '/fraction')).headers.get('cache-control'), 'max-age=60, must-revalidate, private');
  assert.equal((await send(app, '/suffix')).headers.get('cache-control'), 'max-age=10, must-revalidate, private, s-maxage=10abc');
});

/** A kernel.response listener placed after the session save (-1000), as a user may place one. */
function lateWriter(key: string) {
  return {
    hook: 'kernel.response' as const,
    placement: { priority: -1010 },
    listener: {
      id: 'App\\EventListener\\LateListener::onKernelResponse',
      role: 'late session write',
      call(event: { request: { isMainRequest: boolean; getSession(): { set(k: string, v: unknown): void } } }) {
        if (event.request.isMainRequest) event.request.getSession().set(key, 'late');
      },
    },
  };
}

test('regression: a kernel.response listener after the session save wrote to the session and the write was silently lost (Symfony restarts the session and saves it)', async () => {
  const store = new MemorySessionStore();
  const { app } = testApp({ routes, sessionStore: store, listeners: [lateWriter('seen')] });

  // A session already in use: the late write lands in the store with the rest.
  const first = await send(app, '/write');
  const cookie = setCookies(first).get('IRMSSESSID');
  assert.ok(cookie, 'session cookie set');
  const back = await send(app, '/read', { headers: { cookie: `IRMSSESSID=${cookie.value}` } });
  assert.deepEqual(await back.json(), { count: 1 });
  const probe = createProbe(app);
  assert.equal(await probe(cookie.value), 'late');

  // A page that did not use the session before the save: the late write starts one, and the client gets its cookie.
  const plain = await send(app, '/plain');
  const started = setCookies(plain).get('IRMSSESSID');
  assert.ok(started, 'the late write gave the client its session cookie');
  assert.equal(await probe(started.value), 'late');
});

/** Reads one key of the session a cookie names, through a route of its own. */
function createProbe(app: App) {
  return async (id: string) => {
    const r = await send(app, '/read-seen', { headers: { cookie: `IRMSSESSID=${id}` } });
    return ((await r.json()) as { seen: unknown }).seen;
  };
}

test('request.hasPreviousSession() is true only when the session cookie came with the request, under its configured name, and does not create the session', async () => {
  const store = new MemorySessionStore();
  const probeRoutes: RouteDefinition[] = [
    { name: 'previous', path: '/previous', controller: (r) => HttpResponse.json({ previous: r.hasPreviousSession(), created: r.sessionIfCreated !== null }) },
  ];
  const { app } = testApp({ routes: probeRoutes, sessionStore: store, sessionCookieName: 'SID' });
  const asked = async (headers: Record<string, string>) => (await send(app, '/previous', { headers })).json();
  assert.deepEqual(await asked({}), { previous: false, created: false });
  assert.deepEqual(await asked({ cookie: 'other=1' }), { previous: false, created: false });
  assert.deepEqual(await asked({ cookie: 'IRMSSESSID=abc' }), { previous: false, created: false });
  // (the firewall's ContextListener then reads the session, as Symfony's does on hasPreviousSession)
  assert.equal(((await asked({ cookie: 'other=1; SID=abc' })) as { previous: boolean }).previous, true);
});
