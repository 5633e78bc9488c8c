// accessControl against Symfony 5.4's AccessListener, AuthenticatedVoter and Firewall::onKernelRequest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getMember, HttpResponse, logIn, signMemberToken, type AccessControlRule, type AppOptions, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

const page = (request: Parameters<RouteDefinition['controller']>[0]) => HttpResponse.text(`page:${getMember(request)?.memberId ?? 'anonymous'}`);

const routes: RouteDefinition[] = [
  {
    name: 'login',
    path: '/login',
    methods: ['GET', 'POST'],
    controller: (r) => {
      if (r.method !== 'POST') return HttpResponse.text('login form');
      logIn(r, { memberId: '42', irmsToken: 'tok-42', roles: String(r.query.get('roles') ?? '').split(',').filter((role) => role !== '') });
      return HttpResponse.text('in');
    },
  },
  { name: 'logout', path: '/logout', methods: ['GET', 'POST'], controller: () => HttpResponse.text('never runs') },
  { name: 'admin_logout', path: '/admin/logout', controller: () => HttpResponse.text('never runs') },
  { name: 'page', path: '/p/:page', methods: ['GET', 'POST'], controller: page },
];

function setup(accessControl: AccessControlRule[], options: AppOptions = {}) {
  return testApp({ routes, firewalls: [{ name: 'main', logoutPath: '/logout' }], loginPath: '/login', accessControl, environment: { APP_SECRET: 'test-secret' }, ...options });
}

const JSON_CLIENT = { accept: 'application/json' };

test('regression: PUBLIC_ACCESS beside a role (or allowIf) granted everyone; Symfony\'s AuthenticatedVoter grants it only as the sole attribute', async () => {
  const { app } = setup([
    { path: '^/p/mixed', roles: ['PUBLIC_ACCESS', 'ROLE_ADMIN'] },
    { path: '^/p/probe', roles: 'PUBLIC_ACCESS', allowIf: ({ request }) => request.headers.get('x-probe') === '1' },
    { path: '^/p/twice', roles: 'PUBLIC_ACCESS, PUBLIC_ACCESS' },
    { path: '^/p/open', roles: 'PUBLIC_ACCESS' },
  ]);
  const user = await signMemberToken(app, { memberId: 'u' });
  const admin = await signMemberToken(app, { memberId: 'a', roles: ['ROLE_ADMIN'] });

  // [PUBLIC_ACCESS, ROLE_ADMIN]: the role alone decides.
  const anonymous = await send(app, '/p/mixed');
  assert.equal(anonymous.status, 302);
  assert.equal(anonymous.headers.get('location'), 'http://localhost/login');
  assert.equal((await send(app, '/p/mixed', { headers: JSON_CLIENT })).status, 401);
  const denied = await send(app, '/p/mixed', { headers: { ...JSON_CLIENT, authorization: `Bearer ${user}` } });
  assert.equal(denied.status, 403);
  assert.equal((await denied.json()).detail, 'Access Denied.');
  const granted = await send(app, '/p/mixed', { headers: { authorization: `Bearer ${admin}` } });
  assert.equal(granted.status, 200);
  assert.equal(await granted.text(), 'page:a');

  // [PUBLIC_ACCESS, allow_if expression]: the expression alone decides.
  assert.equal((await send(app, '/p/probe', { headers: JSON_CLIENT })).status, 401);
  assert.equal((await send(app, '/p/probe', { headers: { 'x-probe': '1' } })).status, 200);
  // A list that is not exactly [PUBLIC_ACCESS] is granted by no voter.
  assert.equal((await send(app, '/p/twice', { headers: { authorization: `Bearer ${admin}`, ...JSON_CLIENT } })).status, 403);
  // [PUBLIC_ACCESS] alone stays open, whatever the method.
  assert.equal(await (await send(app, '/p/open')).text(), 'page:anonymous');
  assert.equal((await send(app, '/p/open', { method: 'POST' })).status, 200);
});

test('regression: a rule denying the logout path was skipped on a lazy firewall; Symfony 5.4 yields the LogoutListener after the LazyFirewallContext, whose AccessListener denies first', async () => {
  const rules: AccessControlRule[] = [{ path: '^/login', roles: 'PUBLIC_ACCESS' }, { path: '^/', roles: 'ROLE_USER' }];
  const { app } = setup(rules);
  // Anonymous: the rule answers (entry point), nobody is logged out.
  for (const method of ['GET', 'POST']) {
    const r = await send(app, '/logout', { method });
    assert.equal(r.status, 302, method);
    assert.equal(r.headers.get('location'), 'http://localhost/login', method);
  }
  assert.equal((await send(app, '/logout', { headers: JSON_CLIENT })).status, 401);

  // A member the rule lets through is logged out, as before.
  const login = await send(app, '/login', { method: 'POST' });
  const cookie = `IRMSSESSID=${setCookies(login).get('IRMSSESSID')!.value}`;
  assert.equal(await (await send(app, '/p/x', { headers: { cookie } })).text(), 'page:42');
  const out = await send(app, '/logout', { headers: { cookie } });
  assert.equal(out.status, 302);
  assert.equal(out.headers.get('location'), 'http://localhost/');
  assert.equal((await send(app, '/p/x', { headers: { cookie, ...JSON_CLIENT } })).status, 401);

  // A member without the rule's role gets its 403 and stays logged in.
  const { app: admin } = testApp({
    routes,
    firewalls: [{ name: 'main', logoutPath: '/admin/logout' }],
    loginPath: '/login',
    accessControl: [{ path: '^/admin', roles: 'ROLE_ADMIN' }],
    environment: { APP_SECRET: 'test-secret' },
  });
  const member = `IRMSSESSID=${setCookies(await send(admin, '/login', { method: 'POST' })).get('IRMSSESSID')!.value}`;
  assert.equal((await send(admin, '/admin/logout', { headers: { cookie: member, ...JSON_CLIENT } })).status, 403);
  assert.equal(await (await send(admin, '/p/x', { headers: { cookie: member } })).text(), 'page:42');
});

test('a non-lazy or stateless firewall is a plain FirewallContext: its LogoutListener (-127) still runs before the AccessListener (-255)', async () => {
  for (const firewall of [{ name: 'main', logoutPath: '/logout', lazy: false }, { name: 'main', logoutPath: '/logout', stateless: true }]) {
    const { app } = setup([{ path: '^/', roles: 'ROLE_USER' }], { firewalls: [firewall] });
    const r = await send(app, '/logout');
    assert.equal(r.status, 302, JSON.stringify(firewall));
    assert.equal(r.headers.get('location'), 'http://localhost/', JSON.stringify(firewall));
  }
});

test('regression: string patterns were matched on decoded characters; Symfony\'s preg_match (no `u`) reads pattern and path as bytes, so `.` is one byte of an `é`', async () => {
  const { app } = setup(
    [
      { path: '^/p/caf.$', roles: 'ROLE_ADMIN' },
      { path: '^/p/x.{2}$', roles: 'ROLE_ADMIN' },
      { path: '^/p/na\u00efve$', roles: 'ROLE_ADMIN' },
      { path: /^\/p\/y.$/, roles: 'ROLE_ADMIN' },
    ],
  );
  const status = async (path: string) => (await send(app, path, { headers: JSON_CLIENT })).status;
  assert.equal(await status('/p/cafe'), 401);
  assert.equal(await status('/p/caf%C3%A9'), 200, '`.` is one byte, `é` two: the rule does not match');
  assert.equal(await status('/p/x%C3%A9'), 401, '`.{2}` is the two bytes of `é`');
  assert.equal(await status('/p/na%C3%AFve'), 401, 'a non-ASCII pattern matches the same text');
  assert.equal(await status('/p/y%C3%A9'), 401, 'a RegExp reads the decoded text, as JavaScript does');
  // Firewalls alike: `..` is the two bytes of `é`, so the firewall without security protects it; `fw.` is not `fwé`.
  const firewall = setup([{ path: '^/p', roles: 'ROLE_ADMIN' }], {
    firewalls: [{ name: 'open', pattern: '^/p/(?:fw.|..)$', security: false }, { name: 'main', logoutPath: '/logout' }],
  });
  assert.equal((await send(firewall.app, '/p/%C3%A9', { headers: JSON_CLIENT })).status, 200);
  assert.equal((await send(firewall.app, '/p/fw%C3%A9', { headers: JSON_CLIENT })).status, 401);
  assert.equal((await send(firewall.app, '/p/fwe', { headers: JSON_CLIENT })).status, 200);
});
