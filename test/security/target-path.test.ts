import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessDeniedException, getTargetPath, HttpResponse, logIn, MemorySessionStore, removeTargetPath, type AppOptions, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

/** A login controller as the README shows it: back to where the visitor was going, else home. */
const routes: RouteDefinition[] = [
  {
    name: 'login',
    path: '/login',
    methods: ['GET', 'POST'],
    controller: (r) => {
      if (r.method === 'GET') return HttpResponse.text('login form');
      logIn(r, { memberId: '42', irmsToken: 'tok-42' });
      const back = getTargetPath(r);
      removeTargetPath(r);
      return HttpResponse.redirect(back ?? '/');
    },
  },
  { name: 'account', path: '/account', methods: ['GET', 'POST'], controller: () => HttpResponse.text('account'), options: { requiresLogin: true } },
  { name: 'denied', path: '/reports', controller: () => { throw new AccessDeniedException('Members only.'); } },
  { name: 'admin_area', path: '/admin/stats', controller: () => HttpResponse.text('stats'), options: { requiresLogin: true } },
  { name: 'admin_back', path: '/whence', controller: (r) => HttpResponse.json({ main: getTargetPath(r), admin: getTargetPath(r, 'admin') }) },
  { name: 'api_orders', path: '/api/orders', controller: () => HttpResponse.text('orders'), options: { requiresLogin: true } },
];

function setup(options: AppOptions = {}) {
  const store = new MemorySessionStore();
  const { app } = testApp({
    routes,
    sessionStore: store,
    loginPath: '/login',
    environment: { APP_SECRET: 'test-secret' },
    firewalls: [
      { name: 'api', pattern: '^/api/', stateless: true, loginPath: '/login' },
      { name: 'admin', pattern: '^/admin', context: 'admin', loginPath: '/login' },
      { name: 'main' },
    ],
    ...options,
  });
  return { app, store };
}

const html = { accept: 'text/html' };

test('regression: after the login redirect of a requiresLogin route, the login controller could not send the member back to the page asked for (no target path was kept)', async () => {
  const { app } = setup();
  const denied = await send(app, '/account?tab=orders', { headers: html });
  assert.equal(denied.status, 302);
  assert.equal(denied.headers.get('location'), 'http://localhost/login');
  const sid = setCookies(denied).get('IRMSSESSID')?.value;
  assert.ok(sid, 'the redirect starts the session that keeps the way back');

  const loggedIn = await send(app, '/login', { method: 'POST', headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.equal(loggedIn.status, 302);
  assert.equal(loggedIn.headers.get('location'), 'http://localhost/account?tab=orders');

  const newSid = setCookies(loggedIn).get('IRMSSESSID')!.value;
  const whence = await send(app, '/whence', { headers: { cookie: `IRMSSESSID=${newSid}` } });
  assert.deepEqual(await whence.json(), { main: null, admin: null }, 'used once, then removed');
});

test('an AccessDeniedException for an anonymous HTML client keeps the target path too (the firewall ExceptionListener)', async () => {
  const { app } = setup();
  const denied = await send(app, '/reports', { headers: html });
  assert.equal(denied.status, 302);
  const sid = setCookies(denied).get('IRMSSESSID')!.value;
  const loggedIn = await send(app, '/login', { method: 'POST', headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.equal(loggedIn.headers.get('location'), 'http://localhost/reports');
});

test('the target path is kept under the protected route\'s firewall: a login route on another firewall reads it by name', async () => {
  const { app } = setup();
  const denied = await send(app, '/admin/stats', { headers: html });
  assert.equal(denied.status, 302);
  const sid = setCookies(denied).get('IRMSSESSID')!.value;
  const whence = await send(app, '/whence', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.deepEqual(await whence.json(), { main: null, admin: 'http://localhost/admin/stats' });
});

test('no target path (and no session) for unsafe methods, XHRs, JSON clients and stateless firewalls, as Symfony\'s setTargetPath', async () => {
  const { app, store } = setup();
  const cases: [string, RequestInit][] = [
    ['/account', { method: 'POST', headers: html }],
    ['/account', { headers: { ...html, 'x-requested-with': 'XMLHttpRequest' } }],
    ['/account', { headers: { accept: 'application/json' } }],
    ['/api/orders', { headers: html }],
  ];
  for (const [path, init] of cases) {
    const r = await send(app, path, init);
    assert.ok(r.status === 302 || r.status === 401, `${path} ${init.method ?? 'GET'}: ${r.status}`);
    assert.equal(setCookies(r).get('IRMSSESSID'), undefined, `${path} ${JSON.stringify(init)}: no session started`);
  }
  assert.equal(store.size, 0);
});

test('regression: a login redirect from a URL of tens of kilobytes stored it whole as the target path, and a session past its size bound made the redirect a 500', async () => {
  const { app } = setup();
  const long = '/account?' + 'a[]&'.repeat(8000);
  const r = await send(app, long, { headers: html });
  assert.equal(r.status, 302);
  assert.equal(r.headers.get('location'), 'http://localhost/login');
  assert.equal(setCookies(r).get('IRMSSESSID'), undefined, 'nothing kept, so no session started');
});
