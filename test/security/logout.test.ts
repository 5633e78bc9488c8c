import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, getMember, HttpResponse, logIn, MemorySessionStore, type AppOptions, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

let logoutControllerRuns = 0;

/** As a Symfony app has them: a logout route whose controller the firewall never lets run. */
const routes: RouteDefinition[] = [
  {
    name: 'login',
    path: '/login',
    methods: ['POST'],
    controller: (r) => {
      logIn(r, { memberId: '42', irmsToken: 'tok-42', rememberMe: r.query.get('remember') === '1' });
      return HttpResponse.text('in');
    },
  },
  {
    name: 'app_logout',
    path: '/logout',
    controller: () => {
      logoutControllerRuns++;
      throw new Error('This method can be blank - it will be intercepted by the logout key on your firewall.');
    },
  },
  { name: 'home', path: '/', controller: () => HttpResponse.text('home') },
  { name: 'bye', path: '/bye', controller: () => HttpResponse.text('bye') },
  { name: 'me', path: '/me', controller: (r) => HttpResponse.text(getMember(r)?.memberId ?? 'anonymous') },
];

function setup(options: AppOptions = {}) {
  const store = new MemorySessionStore();
  const { app } = testApp({ routes, sessionStore: store, environment: { APP_SECRET: 'test-secret' }, ...options });
  return { app, store };
}

async function loggedIn(app: ReturnType<typeof setup>['app'], remember = false) {
  const r = await send(app, `/login${remember ? '?remember=1' : ''}`, { method: 'POST' });
  assert.equal(r.status, 200);
  const cookies = setCookies(r);
  return { sid: cookies.get('IRMSSESSID')!.value, remember: cookies.get('REMEMBERME')?.value };
}

test('regression: a migrated logout route whose controller only throws (Symfony\'s firewall logs out before it runs) was a 500; the firewall now logs out and redirects', async () => {
  const { app, store } = setup();
  const { sid } = await loggedIn(app);
  assert.equal(await (await send(app, '/me', { headers: { cookie: `IRMSSESSID=${sid}` } })).text(), '42');

  logoutControllerRuns = 0;
  const out = await send(app, '/logout', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.equal(out.status, 302);
  assert.equal(out.headers.get('location'), 'http://localhost/');
  assert.equal(setCookies(out).get('IRMSSESSID')?.value, '', 'the session cookie is cleared');
  assert.equal(store.read(sid), null, 'the session is ended');
  assert.equal(logoutControllerRuns, 0, 'the route\'s controller never runs');
  assert.equal(await (await send(app, '/me', { headers: { cookie: `IRMSSESSID=${sid}` } })).text(), 'anonymous');
});

test('logout clears the remember-me cookie, and a visitor logged in by it alone is logged out too', async () => {
  const { app } = setup();
  const { remember } = await loggedIn(app, true);
  assert.ok(remember);
  const cookie = `REMEMBERME=${encodeURIComponent(remember)}`;
  assert.equal(await (await send(app, '/me', { headers: { cookie } })).text(), '42', 'the cookie logs the member in');
  const out = await send(app, '/logout', { headers: { cookie } });
  assert.equal(out.status, 302);
  assert.equal(setCookies(out).get('REMEMBERME')?.value, '', 'the remember-me cookie is cleared');
});

test('an anonymous visitor at the logout path is redirected too, with no session started', async () => {
  const { app, store } = setup();
  for (const method of ['GET', 'POST', 'HEAD']) {
    const r = await send(app, '/logout', { method });
    assert.equal(r.status, 302, method);
    assert.equal(r.headers.getSetCookie().length, 0, method);
  }
  assert.equal(store.size, 0);
});

test('the logout path is matched decoded, as Symfony\'s HttpUtils::checkRequestPath (rawurldecode of the path info)', async () => {
  // Routing compares the raw path (README, "Path variables"): a catch-all route takes `/log%6Fut` here.
  const { app, store } = setup({ routes: [...routes, { name: 'page', path: '/:page', controller: () => HttpResponse.text('page') }] });
  const { sid } = await loggedIn(app);
  const out = await send(app, '/log%6Fut', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.equal(out.status, 302);
  assert.equal(store.read(sid), null);
});

test('logoutTarget: a path, a URL or a route name; logoutPath: a path or a route name', async () => {
  const firewalls = (logout: { logoutPath: string; logoutTarget?: string }) => [{ name: 'main', context: 'main', ...logout }];
  const cases: [{ logoutPath: string; logoutTarget?: string }, string][] = [
    [{ logoutPath: '/logout', logoutTarget: '/bye' }, 'http://localhost/bye'],
    [{ logoutPath: '/logout', logoutTarget: 'https://example.com/signed-out' }, 'https://example.com/signed-out'],
    [{ logoutPath: '/logout', logoutTarget: 'bye' }, 'http://localhost/bye'],
    [{ logoutPath: 'app_logout' }, 'http://localhost/'],
  ];
  for (const [logout, location] of cases) {
    const { app, store } = setup({ firewalls: firewalls(logout) });
    const { sid } = await loggedIn(app);
    const out = await send(app, '/logout', { headers: { cookie: `IRMSSESSID=${sid}` } });
    assert.equal(out.status, 302, JSON.stringify(logout));
    assert.equal(out.headers.get('location'), location, JSON.stringify(logout));
    assert.equal(store.read(sid), null, JSON.stringify(logout));
  }
});

test('without a route for the logout path it is a 404, as in Symfony (routing runs before the firewall)', async () => {
  const { app } = testApp({ routes: routes.filter((r) => r.name !== 'app_logout') });
  assert.equal((await send(app, '/logout')).status, 404);
});

test('a firewall without logoutPath, or with security off, leaves the route to its controller', async () => {
  const own: RouteDefinition = { name: 'own_logout', path: '/logout', controller: () => HttpResponse.text('own logout') };
  for (const firewalls of [[{ name: 'main', context: 'main' }], [{ name: 'open', security: false, logoutPath: '/logout' }]]) {
    const { app } = testApp({ routes: [own], firewalls });
    const r = await send(app, '/logout');
    assert.equal(r.status, 200, JSON.stringify(firewalls));
    assert.equal(await r.text(), 'own logout');
  }
});

test('an empty or non-string logoutPath or logoutTarget is refused when the app is made', () => {
  for (const bad of [{ logoutPath: '' }, { logoutPath: 7 }, { logoutTarget: false }]) {
    assert.throws(() => createApp({ routes, firewalls: [{ name: 'main', ...bad } as never] }), /Firewall "main": logout(Path|Target) must/, JSON.stringify(bad));
  }
});

test('regression: the logout path of a stateless API firewall logged the member out of the site (its session ended, its remember-me cookie cleared), and was a 500 with an asynchronous session store', async () => {
  const memory = new MemorySessionStore();
  const asyncStore = {
    read: (id: string) => Promise.resolve(memory.read(id)),
    write: (id: string, data: string) => Promise.resolve(memory.write(id, data)),
    destroy: (id: string) => Promise.resolve(memory.destroy(id)),
  };
  const firewalls = [
    { name: 'api', pattern: '^/api/', stateless: true, logoutPath: '/api/logout' },
    { name: 'main', context: 'main', logoutPath: '/logout' },
  ];
  const apiLogout: RouteDefinition = { name: 'api_logout', path: '/api/logout', controller: () => HttpResponse.text('never runs') };
  for (const sessionStore of [memory, asyncStore]) {
    const { app } = testApp({ routes: [...routes, apiLogout], firewalls, sessionStore, environment: { APP_SECRET: 'test-secret' } });
    const { sid, remember } = await loggedIn(app, true);
    const cookie = `IRMSSESSID=${sid}; REMEMBERME=${encodeURIComponent(remember!)}`;
    const out = await send(app, '/api/logout', { headers: { cookie } });
    assert.equal(out.status, 302, await out.clone().text());
    assert.equal(out.headers.get('location'), 'http://localhost/');
    assert.deepEqual([...setCookies(out).keys()], [], 'neither the site\'s session cookie nor its remember-me cookie is touched');
    assert.equal(await (await send(app, '/me', { headers: { cookie: `IRMSSESSID=${sid}` } })).text(), '42', 'still logged in to the site');
  }
});

test('regression: with an asynchronous session store, a logout route declared stateless was a 500 (the session it invalidates had not been loaded)', async () => {
  const memory = new MemorySessionStore();
  const sessionStore = {
    read: (id: string) => Promise.resolve(memory.read(id)),
    write: (id: string, data: string) => Promise.resolve(memory.write(id, data)),
    destroy: (id: string) => Promise.resolve(memory.destroy(id)),
  };
  const statelessLogout = routes.map((r) => (r.name === 'app_logout' ? { ...r, options: { stateless: true } } : r));
  const { app } = testApp({ routes: statelessLogout, sessionStore, env: 'prod', environment: { APP_SECRET: 'test-secret' } });
  const { sid } = await loggedIn(app);
  const out = await send(app, '/logout', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.equal(out.status, 302);
  assert.equal(setCookies(out).get('IRMSSESSID')?.value, '', 'the session cookie is cleared');
  assert.equal(memory.read(sid), null, 'the session is ended, as Symfony\'s SessionLogoutListener ends it');
});

test('regression: a logoutTarget naming a route with a path variable was a 500 (its parameters were not filled from the request, as HttpUtils fills them)', async () => {
  const tenantRoutes: RouteDefinition[] = [
    { name: 'tenant_logout', path: '/t/:tenant/logout', controller: () => { throw new Error('intercepted'); } },
    { name: 'tenant_home', path: '/t/:tenant', controller: () => HttpResponse.text('home') },
  ];
  const { app } = testApp({ routes: tenantRoutes, firewalls: [{ name: 'main', context: 'main', logoutPath: 'tenant_logout', logoutTarget: 'tenant_home' }] });
  const out = await send(app, '/t/acme/logout');
  assert.equal(out.status, 302);
  assert.equal(out.headers.get('location'), 'http://localhost/t/acme');
});
