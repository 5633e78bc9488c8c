// Logout CSRF, attacked as another site would: Symfony's `logout: csrf_token_generator` as the
// firewall's `logoutCsrfTokenId`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, csrfToken, getMember, HttpResponse, logIn, MemorySessionStore, type FirewallConfig, type RouteDefinition } from '../../src/index.ts';
import { records, send, setCookies, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'login', path: '/login', methods: ['POST'], controller: (r) => { logIn(r, { memberId: '42', irmsToken: 'tok-42' }); return HttpResponse.text('in'); } },
  { name: 'app_logout', path: '/logout', methods: ['GET', 'POST'], controller: () => HttpResponse.text('never runs') },
  // The page that prints the logout link, as a template would with csrf_token('logout').
  { name: 'menu', path: '/menu', controller: (r) => HttpResponse.text(csrfToken(r, 'logout')) },
  { name: 'other_token', path: '/other', controller: (r) => HttpResponse.text(csrfToken(r, 'authenticate')) },
  { name: 'me', path: '/me', controller: (r) => HttpResponse.text(getMember(r)?.memberId ?? 'anonymous') },
];

function setup(firewall: Partial<FirewallConfig> = {}) {
  const store = new MemorySessionStore();
  const { app, lines } = testApp({
    routes,
    sessionStore: store,
    logFormat: 'json',
    environment: { APP_SECRET: 'test-secret' },
    firewalls: [{ name: 'main', logoutPath: '/logout', logoutCsrfTokenId: 'logout', ...firewall }],
  });
  return { app, lines, store };
}

async function member(app: ReturnType<typeof setup>['app']): Promise<string> {
  const r = await send(app, '/login', { method: 'POST' });
  return `IRMSSESSID=${setCookies(r).get('IRMSSESSID')!.value}`;
}

async function whoAmI(app: ReturnType<typeof setup>['app'], cookie: string): Promise<string> {
  return (await send(app, '/me', { headers: { cookie } })).text();
}

test('regression: a link to /logout on another site logged the member out (no CSRF protection for logout); with logoutCsrfTokenId it is a 403 and the member stays logged in', async () => {
  const { app, lines } = setup();
  const cookie = await member(app);
  const forged = await send(app, '/logout', { headers: { cookie, accept: 'text/html' } });
  assert.equal(forged.status, 403);
  assert.match(await forged.text(), /Invalid CSRF token\./);
  assert.equal(forged.headers.getSetCookie().length, 0, 'the session cookie is kept');
  assert.equal(await whoAmI(app, cookie), '42');
  const log = records(lines).find((r) => r.message === 'A LogoutException was thrown; wrapping with AccessDeniedHttpException');
  assert.equal(log?.channel, 'security');
});

test('regression: a forged logout with a wrong, foreign or malformed _csrf_token was not refused; each is a 403', async () => {
  const { app } = setup();
  const cookie = await member(app);
  const foreign = await (await send(app, '/other', { headers: { cookie } })).text();
  const { app: otherApp } = setup();
  const otherCookie = await member(otherApp);
  const otherSite = await (await send(otherApp, '/menu', { headers: { cookie: otherCookie } })).text();
  for (const query of [`_csrf_token=${encodeURIComponent(foreign)}`, `_csrf_token=${encodeURIComponent(otherSite)}`, '_csrf_token=', '_csrf_token[]=x', '_csrf_token=a.b.c', '_csrf_token=%00', 'csrf_token=x']) {
    const r = await send(app, `/logout?${query}`, { headers: { cookie } });
    assert.equal(r.status, 403, query);
  }
  const posted = await send(app, '/logout', { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf_token=${encodeURIComponent(foreign)}` });
  assert.equal(posted.status, 403);
  assert.equal(await whoAmI(app, cookie), '42');
});

test('with the session\'s logout token, in the query (a link) or the body (a form), the member is logged out and redirected', async () => {
  const { app, store } = setup();
  for (const how of ['query', 'body'] as const) {
    const cookie = await member(app);
    const token = await (await send(app, '/menu', { headers: { cookie } })).text();
    const out = how === 'query'
      ? await send(app, `/logout?_csrf_token=${encodeURIComponent(token)}`, { headers: { cookie } })
      : await send(app, '/logout', { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf_token=${encodeURIComponent(token)}` });
    assert.equal(out.status, 302, how);
    assert.equal(out.headers.get('location'), 'http://localhost/', how);
    assert.equal(setCookies(out).get('IRMSSESSID')?.value, '', how);
    assert.equal(store.read(cookie.slice('IRMSSESSID='.length)), null, how);
    assert.equal(await whoAmI(app, cookie), 'anonymous', how);
  }
});

test('an anonymous visitor without a session at a CSRF-protected logout gets the 403 and no session', async () => {
  const { app, store } = setup();
  const r = await send(app, '/logout?_csrf_token=x');
  assert.equal(r.status, 403);
  assert.equal(r.headers.getSetCookie().length, 0);
  assert.equal(store.size, 0);
});

test('a logoutCsrfTokenId that could never be checked is refused when the app is built', () => {
  const build = (firewall: FirewallConfig) => () => createApp({ routes, firewalls: [firewall] });
  assert.throws(build({ name: 'main', logoutCsrfTokenId: 'logout' }), /logoutCsrfTokenId needs a logoutPath/);
  assert.throws(build({ name: 'main', logoutPath: '/logout', logoutCsrfTokenId: '' }), /must not be empty/);
  assert.throws(build({ name: 'api', stateless: true, logoutPath: '/logout', logoutCsrfTokenId: 'logout' }), /needs a stateful firewall/);
  assert.throws(build({ name: 'main', logoutPath: '/logout', logoutCsrfTokenId: 7 as unknown as string }), /logoutCsrfTokenId must be a string/);
});

test('with an asynchronous session store the logout token is checked against the loaded session: a forged logout is a 403, the right token logs out', async () => {
  const memory = new MemorySessionStore();
  const sessionStore = {
    read: (id: string) => Promise.resolve(memory.read(id)),
    write: (id: string, data: string) => Promise.resolve(memory.write(id, data)),
    destroy: (id: string) => Promise.resolve(memory.destroy(id)),
  };
  const { app } = testApp({ routes, sessionStore, environment: { APP_SECRET: 'test-secret' }, firewalls: [{ name: 'main', logoutPath: '/logout', logoutCsrfTokenId: 'logout' }] });
  const cookie = await member(app);
  const token = await (await send(app, '/menu', { headers: { cookie } })).text();
  assert.equal((await send(app, '/logout', { method: 'POST', headers: { cookie } })).status, 403);
  assert.equal(await whoAmI(app, cookie), '42');
  const out = await send(app, `/logout?_csrf_token=${encodeURIComponent(token)}`, { method: 'POST', headers: { cookie } });
  assert.equal(out.status, 302);
  assert.equal(await whoAmI(app, cookie), 'anonymous');
});

test('regression: logoutUrl() left the CSRF token out of a protected logout\'s link (LogoutUrlGenerator adds _csrf_token), so the link the app printed was refused', async () => {
  const { logoutUrl } = await import('../../src/index.ts');
  for (const logoutPath of ['/logout', 'app_logout']) {
    const { app } = testApp({
      routes: [...routes, { name: 'link', path: '/link', controller: (r) => HttpResponse.text(String(logoutUrl(r))) }],
      sessionStore: new MemorySessionStore(),
      environment: { APP_SECRET: 'test-secret' },
      firewalls: [{ name: 'main', logoutPath, logoutCsrfTokenId: 'logout' }],
    });
    const cookie = await member(app);
    const link = await (await send(app, '/link', { headers: { cookie } })).text();
    assert.match(link, /^\/logout\?_csrf_token=[^&]+$/, logoutPath);
    const out = await send(app, link, { headers: { cookie } });
    assert.equal(out.status, 302, `${logoutPath}: the printed link logs out`);
    assert.equal(await whoAmI(app, cookie), 'anonymous');
  }
});
