import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getMember, HttpResponse, listener, logIn, logOut, logoutUrl, MemorySessionStore, signMemberToken, type AppOptions, type RouteDefinition } from '../../src/index.ts';
import { Signer } from '../../src/security/signing.ts';
import { records, send, setCookies, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'home', path: '/', controller: (r) => HttpResponse.json({ irms_token: r.attributes.get('irms_token'), member_id: r.attributes.get('member_id'), logout: logoutUrl(r) }) },
  {
    name: 'login',
    path: '/login',
    methods: ['POST'],
    controller: (r) => {
      logIn(r, { memberId: r.request.getString('member'), irmsToken: r.request.getString('token'), roles: ['ROLE_MEMBER'], rememberMe: r.request.get('remember') === true });
      return HttpResponse.json({ ok: true });
    },
  },
  { name: 'logout', path: '/logout', controller: (r) => { logOut(r); return HttpResponse.text('bye'); } },
  { name: 'account', path: '/account', methods: ['GET'], controller: (r) => HttpResponse.json({ member_id: getMember(r)?.memberId, by: getMember(r)?.authenticatedBy }), options: { requiresLogin: true } },
  { name: 'full', path: '/full', controller: () => HttpResponse.text('fully'), options: { isGranted: 'IS_AUTHENTICATED_FULLY' } },
  { name: 'full_security', path: '/full-security', controller: () => HttpResponse.text('fully'), options: { security: (c) => c.isGranted('IS_AUTHENTICATED_FULLY') } },
  { name: 'admin_home', path: '/admin', controller: (r) => HttpResponse.json({ member_id: r.attributes.get('member_id') }) },
  {
    name: 'admin_login',
    path: '/admin/login',
    methods: ['POST'],
    controller: (r) => {
      logIn(r, { memberId: r.request.getString('member'), irmsToken: r.request.getString('token'), roles: ['ROLE_ADMIN'], rememberMe: true });
      return HttpResponse.json({ ok: true });
    },
  },
  { name: 'admin_account', path: '/admin/account', methods: ['GET'], controller: (r) => HttpResponse.json({ member_id: getMember(r)?.memberId, by: getMember(r)?.authenticatedBy }), options: { requiresLogin: true } },
  { name: 'echo', path: '/api/echo', methods: ['POST'], controller: () => HttpResponse.text('ok') },
];

function setup(options: AppOptions = {}) {
  const store = new MemorySessionStore();
  const { app, lines } = testApp({ routes, sessionStore: store, logFormat: 'json', environment: { APP_SECRET: 'test-secret' }, ...options });
  return { app, store, lines };
}

async function login(app: ReturnType<typeof setup>['app'], body: Record<string, unknown>, cookie?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (cookie) headers.cookie = cookie;
  return send(app, '/login', { method: 'POST', headers, body: JSON.stringify(body) });
}

function appRecords(lines: string[]) {
  return records(lines).filter((r) => r.channel === 'app');
}

test('anonymous requests record empty irms_token and member_id and log them at INFO on channel app', async () => {
  const { app, lines } = setup();
  const r = await send(app, '/');
  assert.deepEqual(await r.json(), { irms_token: '', member_id: '', logout: '/logout' });
  const app_ = appRecords(lines);
  assert.equal(app_.length, 1);
  assert.equal(app_[0].level_name, 'INFO');
  assert.deepEqual(app_[0].context, { irms_token: '', member_id: '' });
  assert.equal(r.headers.getSetCookie().length, 0, 'no cookie for anonymous visitors');
});

test('login rotates the session id; the member is read back from the session; the token is logged masked', async () => {
  const { app, lines, store } = setup();
  const invalid = await login(app, { member: '', token: '' });
  assert.equal(invalid.status, 500, 'logIn() refuses an empty member id');
  const first = await login(app, { member: '42', token: 'tok-abcdef' });
  assert.equal(first.status, 200);
  const sid1 = setCookies(first).get('IRMSSESSID')!.value;
  assert.ok(sid1);

  // Logging in again on that session rotates the id; the old one stops working.
  const second = await login(app, { member: '42', token: 'tok-abcdef' }, `IRMSSESSID=${sid1}`);
  const sid2 = setCookies(second).get('IRMSSESSID')!.value;
  assert.notEqual(sid2, sid1);
  assert.equal(store.read(sid1), null);

  lines.length = 0;
  const home = await send(app, '/', { headers: { cookie: `IRMSSESSID=${sid2}` } });
  assert.deepEqual(await home.json(), { irms_token: 'tok-abcdef', member_id: '42', logout: '/logout' });
  assert.deepEqual(appRecords(lines)[0].context, { irms_token: 'tok-…', member_id: '42' });
  assert.ok(!lines.some((l) => l.includes('tok-abcdef')), 'the token never reaches the log');
  assert.equal(home.headers.get('cache-control'), 'max-age=0, must-revalidate, private');

  const old = await send(app, '/', { headers: { cookie: `IRMSSESSID=${sid1}` } });
  assert.equal((await old.json()).member_id, '', 'the pre-login id no longer authenticates');
});

test('requiresLogin: anonymous → 401 (problem+json for JSON clients), HEAD exactly like GET; members pass', async () => {
  const { app } = setup();
  for (const method of ['GET', 'HEAD']) {
    const r = await send(app, '/account', { method });
    assert.equal(r.status, 401, method);
    assert.equal(r.headers.get('www-authenticate'), 'Bearer');
    assert.equal(r.headers.get('x-robots-tag'), 'noindex');
  }
  const json = await send(app, '/account', { headers: { accept: 'application/json' } });
  assert.equal(json.status, 401);
  assert.equal(json.headers.get('content-type'), 'application/problem+json');
  assert.equal((await json.json()).detail, 'Full authentication is required to access this resource.');

  const sid = setCookies(await login(app, { member: '7', token: 'seven' })).get('IRMSSESSID')!.value;
  for (const method of ['GET', 'HEAD']) {
    const r = await send(app, '/account', { method, headers: { cookie: `IRMSSESSID=${sid}` } });
    assert.equal(r.status, 200, method);
  }
});

test('requiresLogin with a login path: HTML clients are redirected, JSON clients still get 401', async () => {
  const { app } = setup({ loginPath: '/login' });
  for (const method of ['GET', 'HEAD']) {
    const r = await send(app, '/account', { method, headers: { accept: 'text/html' } });
    assert.equal(r.status, 302, method);
    assert.equal(r.headers.get('location'), 'http://localhost/login');
    assert.equal(r.headers.get('x-robots-tag'), 'noindex');
  }
  assert.equal((await send(app, '/account', { headers: { accept: 'application/json' } })).status, 401);
});

test('regression: the login redirect of a requiresLogin route ran its converters (a 404 told anonymous clients which ids exist) and kept its cache option (the browser cached the redirect)', async () => {
  const orders = new Map([['1', { id: 1 }]]);
  let lookups = 0;
  const order: RouteDefinition = {
    name: 'order',
    path: '/orders/:order',
    controller: (r) => HttpResponse.json(r.attributes.get('order')),
    options: { requiresLogin: true, cache: { maxAge: 60 }, converters: { order: (id) => (lookups++, orders.get(String(id)) ?? null) } },
  };
  const { app } = setup({ loginPath: '/login', routes: [...routes, order] });
  for (const id of ['1', '2']) {
    const r = await send(app, `/orders/${id}`, { headers: { accept: 'text/html' } });
    assert.equal(r.status, 302, id);
    assert.equal(r.headers.get('location'), 'http://localhost/login', id);
    // The session keeps the URL to come back to (target path): the redirect is private and never stored.
    assert.equal(r.headers.get('cache-control'), 'max-age=0, must-revalidate, private', id);
  }
  assert.equal(lookups, 0, 'no lookup for anonymous clients');
  // A member still gets the converted value and the route's caching.
  const sid = setCookies(await login(app, { member: '42', token: 'tok-42' })).get('IRMSSESSID')!.value;
  const member = await send(app, '/orders/1', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.deepEqual(await member.json(), { id: 1 });
  assert.match(member.headers.get('cache-control')!, /max-age=60/);
  assert.equal((await send(app, '/orders/2', { headers: { cookie: `IRMSSESSID=${sid}` } })).status, 404);
});

test('regression: one global LOGIN_PATH sent anonymous API clients of a stateless firewall to the HTML login form; the entry point is per firewall', async () => {
  const { app } = setup({
    loginPath: '/login',
    routes: [...routes, { name: 'api_orders', path: '/api/orders', methods: ['POST'], controller: () => HttpResponse.text('ok'), options: { requiresLogin: true } }],
    firewalls: [
      { name: 'api', pattern: '^/api/', stateless: true },
      { name: 'admin', pattern: '^/admin', context: 'admin', loginPath: '/admin/login' },
      { name: 'main' },
    ],
  });
  for (const accept of ['*/*', 'text/html', 'application/xml']) {
    const api = await send(app, '/api/orders', { method: 'POST', headers: { accept } });
    assert.equal(api.status, 401, `stateless firewall, Accept ${accept}`);
    assert.equal(api.headers.get('location'), null);
    assert.equal(api.headers.get('www-authenticate'), 'Bearer');
  }
  const admin = await send(app, '/admin/account', { headers: { accept: 'text/html' } });
  assert.equal(admin.status, 302);
  assert.equal(admin.headers.get('location'), 'http://localhost/admin/login', 'the firewall\'s own loginPath wins');
  const main = await send(app, '/account', { headers: { accept: 'text/html' } });
  assert.equal(main.headers.get('location'), 'http://localhost/login', 'other firewalls keep LOGIN_PATH');
});

test('Authorization: Bearer <irms_token> is verified; valid tokens authenticate without creating a session', async () => {
  const { app, store, lines } = setup();
  const token = await signMemberToken(app, { memberId: '99', roles: ['ROLE_API'] });
  lines.length = 0;
  const r = await send(app, '/account', { headers: { authorization: `Bearer ${token}` } });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { member_id: '99', by: 'bearer' });
  assert.equal(r.headers.getSetCookie().length, 0);
  assert.equal(store.size, 0);
  assert.deepEqual(appRecords(lines)[0].context, { irms_token: token.slice(0, 4) + '…', member_id: '99' });

  const tampered = token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA');
  for (const value of [`Bearer ${tampered}`, 'Bearer nonsense', `Basic ${token}`, 'Bearer']) {
    assert.equal((await send(app, '/account', { headers: { authorization: value } })).status, 401, value);
  }
  const expired = await signMemberToken(app, { memberId: '99', expiresIn: -1 });
  assert.equal((await send(app, '/account', { headers: { authorization: `Bearer ${expired}` } })).status, 401);
  // Signed with another secret: rejected.
  const foreign = await signMemberToken('another-secret', { memberId: '99' });
  assert.equal((await send(app, '/account', { headers: { authorization: `Bearer ${foreign}` } })).status, 401);
});

test('the bearer verifier is configurable', async () => {
  const { app } = setup({ verifyBearerToken: async (token) => (token === 'let-me-in' ? { memberId: 'custom', roles: [] } : null) });
  const r = await send(app, '/account', { headers: { authorization: 'Bearer let-me-in' } });
  assert.deepEqual(await r.json(), { member_id: 'custom', by: 'bearer' });
});

test('remember-me: a signed cookie logs the member back in without the session; tampering clears it', async () => {
  const { app } = setup();
  const r = await login(app, { member: '5', token: 'five-token', remember: true });
  const remember = setCookies(r).get('REMEMBERME')!;
  assert.ok(remember, 'remember-me cookie set');
  assert.match(remember.line, /; expires=.*; Max-Age=2592000; path=\/; httponly; samesite=lax$/);

  const back = await send(app, '/account', { headers: { cookie: `REMEMBERME=${encodeURIComponent(remember.value)}` } });
  assert.equal(back.status, 200);
  assert.deepEqual(await back.json(), { member_id: '5', by: 'remember_me' });
  const sid = setCookies(back).get('IRMSSESSID');
  assert.ok(sid?.value, 'the member is stored in a new session');
  const viaSession = await send(app, '/account', { headers: { cookie: `IRMSSESSID=${sid.value}` } });
  assert.deepEqual(await viaSession.json(), { member_id: '5', by: 'remember_me' }, 'the session keeps the remember-me authentication');

  const tampered = remember.value.replace(/^./, (c) => (c === 'e' ? 'f' : 'e'));
  const bad = await send(app, '/account', { headers: { cookie: `REMEMBERME=${encodeURIComponent(tampered)}` } });
  assert.equal(bad.status, 401);
  assert.equal(setCookies(bad).get('REMEMBERME')?.value, '', 'a rejected cookie is cleared');
});

/** The remember-me cookie of a fresh login, as a Cookie header. */
async function rememberMeCookie(app: ReturnType<typeof setup>['app']): Promise<string> {
  const remember = setCookies(await login(app, { member: '5', token: 'five-token', remember: true })).get('REMEMBERME')!;
  return `REMEMBERME=${encodeURIComponent(remember.value)}`;
}

test('regression: a remember-me member became fully authenticated once the session stored it', async () => {
  const { app } = setup();
  const first = await send(app, '/full', { headers: { cookie: await rememberMeCookie(app) } });
  assert.equal(first.status, 401, 'remember-me is not full authentication');
  const sid = setCookies(first).get('IRMSSESSID')?.value;
  assert.ok(sid, 'the remember-me member is stored in a new session');
  const again = await send(app, '/full', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.equal(again.status, 401, 'read back from the session, still not fully authenticated');
  assert.equal((await send(app, '/account', { headers: { cookie: `IRMSSESSID=${sid}` } })).status, 200, 'but still a member');

  const relogin = await login(app, { member: '5', token: 'five-token' }, `IRMSSESSID=${sid}`);
  const fresh = setCookies(relogin).get('IRMSSESSID')?.value;
  assert.ok(fresh && fresh !== sid, 'a real login rotates the session');
  assert.equal((await send(app, '/full', { headers: { cookie: `IRMSSESSID=${fresh}` } })).status, 200, 'a real login is full authentication');
});

test('regression: a remember-me member denied by the isGranted or security route option got 403, not 401', async () => {
  const { app } = setup();
  const cookie = await rememberMeCookie(app);
  for (const path of ['/full', '/full-security']) {
    const r = await send(app, path, { headers: { cookie } });
    assert.equal(r.status, 401, path);
    assert.match(await r.text(), /Full authentication is required to access this resource\./, path);
  }
  const sid = setCookies(await login(app, { member: '5', token: 'five-token' })).get('IRMSSESSID')!.value;
  for (const path of ['/full', '/full-security']) assert.equal((await send(app, path, { headers: { cookie: `IRMSSESSID=${sid}` } })).status, 200, path);
});

test('regression: isGranted IS_REMEMBERED was read as a role, so it denied the members a remember-me cookie logged in', async () => {
  const { app } = setup({ routes: [...routes, { name: 'remembered', path: '/remembered', controller: () => HttpResponse.text('welcome back'), options: { isGranted: 'IS_REMEMBERED' } }] });
  const remembered = await send(app, '/remembered', { headers: { cookie: await rememberMeCookie(app) } });
  assert.equal(remembered.status, 200);
  assert.equal(await remembered.text(), 'welcome back');
  const sid = setCookies(await login(app, { member: '5', token: 'five-token' })).get('IRMSSESSID')!.value;
  assert.equal((await send(app, '/remembered', { headers: { cookie: `IRMSSESSID=${sid}` } })).status, 403, 'a member who logged in with the form is not "remembered"');
  assert.equal((await send(app, '/remembered')).status, 401, 'anonymous');
});

test('regression: a remember-me login did not renew the cookie, so a member coming back every day was still logged out when the first cookie expired', async () => {
  const { app } = setup();
  const cookie = await rememberMeCookie(app);
  const back = await send(app, '/account', { headers: { cookie } });
  assert.deepEqual(await back.json(), { member_id: '5', by: 'remember_me' });
  const renewed = setCookies(back).get('REMEMBERME');
  assert.ok(renewed?.value, 'the remember-me login sends a new cookie');
  assert.match(renewed.line, /; Max-Age=2592000; path=\/; httponly; samesite=lax$/, 'for a full lifetime from now');
  assert.notEqual(`REMEMBERME=${encodeURIComponent(renewed.value)}`, cookie);
  const again = await send(app, '/account', { headers: { cookie: `REMEMBERME=${encodeURIComponent(renewed.value)}` } });
  assert.deepEqual(await again.json(), { member_id: '5', by: 'remember_me' }, 'the renewed cookie logs the member in');

  // A login without "remember me" on a request a remember-me cookie authenticated renews nothing.
  const other = await login(app, { member: '6', token: 'six' }, cookie);
  assert.equal(setCookies(other).get('REMEMBERME'), undefined);
});

test('regression: a remember-me cookie from one firewall context logged the member in on another', async () => {
  const { app } = setup();
  const mainCookie = await rememberMeCookie(app);
  const onAdmin = await send(app, '/admin/account', { headers: { cookie: mainCookie, accept: 'application/json' } });
  assert.equal(onAdmin.status, 401, 'the main cookie does not log the member in on admin');
  assert.equal(setCookies(onAdmin).has('REMEMBERME'), false, 'nor is it cleared: it still belongs to main');
  assert.deepEqual(await (await send(app, '/admin', { headers: { cookie: mainCookie } })).json(), { member_id: '' });
  const onMain = await send(app, '/account', { headers: { cookie: mainCookie } });
  assert.deepEqual(await onMain.json(), { member_id: '5', by: 'remember_me' }, 'and still works on its own firewall');

  const adminLogin = await send(app, '/admin/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ member: '9', token: 'nine-token' }) });
  const adminCookie = `REMEMBERME=${encodeURIComponent(setCookies(adminLogin).get('REMEMBERME')!.value)}`;
  const back = await send(app, '/admin/account', { headers: { cookie: adminCookie } });
  assert.deepEqual(await back.json(), { member_id: '9', by: 'remember_me' });
  const elsewhere = await send(app, '/account', { headers: { cookie: adminCookie, accept: 'application/json' } });
  assert.equal(elsewhere.status, 401, 'the admin cookie does not log in on main either');
  assert.equal(setCookies(elsewhere).has('REMEMBERME'), false);
});

test('regression: the remember-me cookie carried the irms_token readable in clear', async () => {
  const { app } = setup();
  const token = 'tok-secret-bob-0123456789';
  const r = await login(app, { member: 'bob', token, remember: true });
  const value = setCookies(r).get('REMEMBERME')!.value;
  for (const part of value.split(/[.:]/)) {
    for (const alphabet of [part, part.replace(/-/g, '+').replace(/_/g, '/')]) {
      const decoded = Buffer.from(alphabet, 'base64').toString('latin1');
      assert.ok(!decoded.includes(token) && !decoded.includes('bob') && !decoded.includes('ROLE_MEMBER'), `readable in ${part}`);
    }
  }
  assert.ok(!value.includes(token));
  const back = await send(app, '/', { headers: { cookie: `REMEMBERME=${encodeURIComponent(value)}` } });
  assert.deepEqual(await back.json(), { irms_token: token, member_id: 'bob', logout: '/logout' }, 'the app still gets the token back');

  // A cookie of the former signed-only format (correctly signed with APP_SECRET) is rejected like a tampered one.
  const legacy = await new Signer('test-secret').seal('irms-remember-me', { m: 'bob', t: token, r: ['ROLE_MEMBER'], c: 'main', e: Math.floor(Date.now() / 1000) + 3600 });
  const old = await send(app, '/account', { headers: { cookie: `REMEMBERME=${encodeURIComponent(legacy)}`, accept: 'application/json' } });
  assert.equal(old.status, 401);
  assert.equal(old.headers.get('content-type'), 'application/problem+json');
  assert.equal(setCookies(old).get('REMEMBERME')?.value, '', 'the old cookie is cleared');
});

test('logout empties the session, clears its cookie and the remember-me cookie', async () => {
  const { app, store } = setup();
  const r = await login(app, { member: '5', token: 'five-token', remember: true });
  const sid = setCookies(r).get('IRMSSESSID')!.value;
  const remember = setCookies(r).get('REMEMBERME')!.value;
  const out = await send(app, '/logout', { headers: { cookie: `IRMSSESSID=${sid}; REMEMBERME=${encodeURIComponent(remember)}` } });
  assert.equal(setCookies(out).get('IRMSSESSID')?.value, '');
  assert.equal(setCookies(out).get('REMEMBERME')?.value, '');
  assert.equal(store.size, 0);
  const after = await send(app, '/', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.equal((await after.json()).member_id, '');
});

test('firewall contexts are separate: a member of main is anonymous under /admin', async () => {
  const { app } = setup();
  const sid = setCookies(await login(app, { member: '1', token: 'one' })).get('IRMSSESSID')!.value;
  const admin = await send(app, '/admin', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.deepEqual(await admin.json(), { member_id: '' });
});

test('the profiler routes never require login and never authenticate (dev firewall, security off)', async () => {
  const { app, lines } = setup();
  const token = await signMemberToken(app, { memberId: '3' });
  lines.length = 0;
  const r = await send(app, '/_profiler/abc123', { headers: { authorization: `Bearer ${token}` } });
  assert.equal(r.status, 200);
  assert.deepEqual(appRecords(lines)[0].context, { irms_token: '', member_id: '' });
});

test('lazy firewall: GET and HEAD authenticate at the controller, other methods at kernel.request', async () => {
  const seen: Record<string, boolean> = {};
  const { app } = setup({
    listeners: [{
      hook: 'kernel.request',
      listener: listener('Test::probe', 'probe', (e) => void (seen[e.request.method] = e.request.attributes.has('_security_token'))),
      placement: { after: 'FirewallListener::onKernelRequest' },
    }],
  });
  await send(app, '/api/echo', { method: 'POST' });
  await send(app, '/account', { method: 'GET' });
  await send(app, '/account', { method: 'HEAD' });
  assert.deepEqual(seen, { POST: true, GET: false, HEAD: false });
});

test('member_id and irms_token never come from the query or the body', async () => {
  const { app } = setup();
  const r = await send(app, '/?member_id=1&irms_token=x');
  assert.deepEqual(await r.json(), { irms_token: '', member_id: '', logout: '/logout' });
  const j = await send(app, '/api/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"__proto__":{"member_id":"1","irms_token":"x"},"member_id":"2"}' });
  assert.equal(j.status, 200);
  assert.equal((await send(app, '/account')).status, 401);
});

test('regression: the log of a remember-me cookie ignored on another firewall context showed the context as "***"', async () => {
  const { app, lines } = setup();
  const mainCookie = await rememberMeCookie(app);
  lines.length = 0;
  await send(app, '/admin/account', { headers: { cookie: mainCookie, accept: 'application/json' } });
  const ignored = records(lines).find((r) => r.channel === 'security' && /ignored on context/.test(String(r.message)));
  assert.ok(ignored, 'the record is written');
  assert.equal(ignored.message, 'Remember-me cookie of firewall context "main" ignored on context "admin".');
});

test('regression: with an asynchronous session store, logging in or out with a valid bearer token and a session cookie was a 500 (the session was never loaded)', async () => {
  const memory = new MemorySessionStore();
  const sessionStore = {
    read: (id: string) => Promise.resolve(memory.read(id)),
    write: (id: string, data: string) => Promise.resolve(memory.write(id, data)),
    destroy: (id: string) => Promise.resolve(memory.destroy(id)),
  };
  const { app } = setup({ sessionStore });
  const first = await login(app, { member: '1', token: 'tok-1' });
  const sid = setCookies(first).get('IRMSSESSID')!.value;
  const bearer = await signMemberToken(app, { memberId: '2' });
  const headers = { cookie: `IRMSSESSID=${sid}`, authorization: `Bearer ${bearer}` };

  const again = await send(app, '/login', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ member: '3', token: 'tok-3' }) });
  assert.equal(again.status, 200, await again.clone().text());
  const rotated = setCookies(again).get('IRMSSESSID')!.value;
  assert.notEqual(rotated, sid, 'the login rotated the session id');
  assert.equal(await memory.read(sid), null, 'the old id is gone');

  const out = await send(app, '/logout', { headers: { ...headers, cookie: `IRMSSESSID=${rotated}` } });
  assert.equal(out.status, 302, await out.clone().text());
  assert.equal(out.headers.get('location'), 'http://localhost/', 'the firewall logs out and redirects to the logout target');
  assert.equal(setCookies(out).get('IRMSSESSID')?.value, '', 'the session cookie is cleared');
  assert.equal(memory.read(rotated), null, 'logout ended the session');
});

test('regression: a remember-me cookie made from a long irms_token was set, then always rejected and cleared', async () => {
  const { app, lines } = setup();
  const fits = await login(app, { member: '5', token: 'f'.repeat(2000), remember: true });
  const cookie = setCookies(fits).get('REMEMBERME')!;
  assert.ok(cookie.value.length > 2000);
  const back = await send(app, '/account', { headers: { cookie: `REMEMBERME=${encodeURIComponent(cookie.value)}` } });
  assert.deepEqual(await back.json(), { member_id: '5', by: 'remember_me' }, 'a cookie that is set works');

  lines.length = 0;
  const tooLong = await login(app, { member: '5', token: 'x'.repeat(3200), remember: true });
  assert.equal(tooLong.status, 200, 'the login itself succeeds');
  assert.equal(setCookies(tooLong).has('REMEMBERME'), false, 'no cookie that could never log the member in');
  assert.ok(setCookies(tooLong).get('IRMSSESSID')?.value, 'the session carries the member');
  const warning = records(lines).find((r) => r.channel === 'security' && r.level_name === 'WARNING');
  assert.match(String(warning?.message), /^Remember-me cookie not set: it would be \d+ characters, over the 4096 a cookie may hold/);
});

test('regression: a remember-me cookie could not be revoked: with the app\'s token verifier rejecting its irms_token it still logged the member in', async () => {
  const revoked = new Set<string>();
  const { app } = setup({ verifyBearerToken: (token) => (revoked.has(token) ? null : { memberId: token.split('-')[0]!, roles: ['ROLE_MEMBER'] }) });
  const cookie = setCookies(await login(app, { member: '5', token: '5-token', remember: true })).get('REMEMBERME')!;
  const header = { cookie: `REMEMBERME=${encodeURIComponent(cookie.value)}`, accept: 'application/json' };
  assert.deepEqual(await (await send(app, '/account', { headers: header })).json(), { member_id: '5', by: 'remember_me' }, 'a valid token: logged back in');

  revoked.add('5-token');
  const after = await send(app, '/account', { headers: header });
  assert.equal(after.status, 401, 'a revoked irms_token ends the remember-me login');
  assert.equal(setCookies(after).get('REMEMBERME')?.value, '', 'and the cookie is cleared');
});

test('regression: with verifyBearerToken, a remember-me cookie from a form login was rejected and cleared with a NOTICE that did not say why', async () => {
  const apiOnly = (token: string) => (token === 'api-key' ? { memberId: 'api', roles: [] } : null);
  const notices = async (options: AppOptions) => {
    const { app, lines } = setup(options);
    const cookie = setCookies(await login(app, { member: '5', token: 'form-token', remember: true })).get('REMEMBERME')!;
    lines.length = 0;
    const back = await send(app, '/account', { headers: { cookie: `REMEMBERME=${encodeURIComponent(cookie.value)}`, accept: 'application/json' } });
    assert.equal(back.status, 401);
    return records(lines).filter((r) => r.channel === 'security' && r.level_name === 'NOTICE').map((r) => r.message);
  };
  assert.deepEqual(await notices({ verifyBearerToken: apiOnly }), ['Remember-me cookie rejected and cleared: its irms_token was rejected by verifyBearerToken; pass refreshMember to check remember-me members yourself.']);
  assert.deepEqual(await notices({ verifyBearerToken: apiOnly, refreshMember: () => null }), ['Remember-me cookie rejected and cleared: its member was rejected by refreshMember.']);
  const { app, lines } = setup();
  await send(app, '/account', { headers: { cookie: 'REMEMBERME=forged', accept: 'application/json' } });
  assert.ok(records(lines).some((r) => r.message === 'Remember-me cookie rejected and cleared: unreadable or altered.'));
});

test('refreshMember re-checks session and remember-me members: roles follow the app, a member gone is anonymous and forgotten', async () => {
  const members = new Map<string, string[]>([['5', ['ROLE_MEMBER']]]);
  const calls: string[] = [];
  const { app, store } = setup({
    refreshMember: async (member) => {
      calls.push(`${member.memberId}:${member.irmsToken}`);
      const roles = members.get(member.memberId);
      return roles ? { memberId: member.memberId, roles } : null;
    },
  });
  const first = await login(app, { member: '5', token: 'five-token', remember: true });
  assert.deepEqual(calls, [], 'not for the login itself');
  const sid = setCookies(first).get('IRMSSESSID')!.value;
  const remember = setCookies(first).get('REMEMBERME')!.value;

  members.set('5', ['ROLE_MEMBER', 'ROLE_ADMIN']);
  const promoted = await send(app, '/account', { headers: { cookie: `IRMSSESSID=${sid}` } });
  assert.equal(promoted.status, 200);
  assert.deepEqual(calls, ['5:five-token']);
  assert.deepEqual((JSON.parse(store.read(sid)!) as Record<string, { roles: string[] }>)._security_main!.roles, ['ROLE_MEMBER', 'ROLE_ADMIN'], 'the session keeps the refreshed roles');

  members.delete('5');
  const gone = await send(app, '/account', { headers: { cookie: `IRMSSESSID=${sid}`, accept: 'application/json' } });
  assert.equal(gone.status, 401, 'a member the app no longer knows is anonymous');
  assert.equal(JSON.parse(store.read(sid) ?? '{}')._security_main, undefined, 'and the session forgets it');
  const remembered = await send(app, '/account', { headers: { cookie: `REMEMBERME=${encodeURIComponent(remember)}`, accept: 'application/json' } });
  assert.equal(remembered.status, 401, 'the remember-me cookie no longer logs it in');
  assert.equal(setCookies(remembered).get('REMEMBERME')?.value, '');

  const impostor = setup({ refreshMember: (member) => ({ memberId: `${member.memberId}-other` }) });
  const sid2 = setCookies(await login(impostor.app, { member: '7', token: 't' })).get('IRMSSESSID')!.value;
  assert.equal((await send(impostor.app, '/account', { headers: { cookie: `IRMSSESSID=${sid2}`, accept: 'application/json' } })).status, 401, 'an answer naming another member counts as none');
});

test('regression: one account logging in again and again (no cookie kept) cannot evict other members\' sessions from the bounded store', async () => {
  const store = new MemorySessionStore({ maxCount: 40 });
  const { app } = testApp({ routes, sessionStore: store, environment: { APP_SECRET: 'test-secret' } });
  const victim = setCookies(await login(app, { member: 'victim', token: 'victim-token' })).get('IRMSSESSID')!.value;
  // The attacker's account logs in 200 times, each time without the session cookie: 200 member sessions.
  for (let i = 0; i < 200; i++) assert.equal((await login(app, { member: 'attacker', token: 'attacker-token' })).status, 200);
  const home = await send(app, '/', { headers: { cookie: `IRMSSESSID=${victim}` } });
  assert.equal(((await home.json()) as { member_id: string }).member_id, 'victim', 'the victim is still logged in');
  assert.ok(store.size <= 33, `the attacker holds at most 32 sessions (store holds ${store.size})`);
});

test('regression: a rejected bearer token was logged as "the request continues as anonymous" while the session\'s member carried the request on', async () => {
  const { app, lines } = setup({ verifyBearerToken: (token) => (token === 'api-key' ? { memberId: 'api', roles: [] } : null) });
  const session = setCookies(await login(app, { member: '5', token: 'form-token' })).get('IRMSSESSID')!;
  lines.length = 0;
  const r = await send(app, '/account', { headers: { cookie: `IRMSSESSID=${session.value}`, authorization: 'Bearer wrong', accept: 'application/json' } });
  assert.deepEqual(await r.json(), { member_id: '5', by: 'session' });
  const notices = records(lines).filter((l) => l.channel === 'security' && l.level_name === 'NOTICE').map((l) => l.message);
  assert.deepEqual(notices, ['The bearer token was rejected; the request goes on without it (a session or remember-me login may still authenticate it).']);
});
