// Symfony's `access_control` (createApp({ accessControl })): the ChannelListener and AccessListener of the
// firewall, answered by the firewall's ExceptionListener (login redirect, 401, 403).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createApp, getMember, getTargetPath, HttpResponse, logIn, signMemberToken, type AccessControlRule, type AppOptions, type RouteDefinition } from '../../src/index.ts';
import { records, send, setCookies, testApp } from '../pipeline/harness.ts';

let controllerRuns = 0;
const page = (name: string) => (request: Parameters<RouteDefinition['controller']>[0]) => {
  controllerRuns++;
  return HttpResponse.text(`${name}:${getMember(request)?.memberId ?? 'anonymous'}`);
};

const routes: RouteDefinition[] = [
  {
    // POST /login?roles=ROLE_A,ROLE_B&remember=1 logs member 42 in with those roles.
    name: 'login',
    path: '/login',
    controller: (r) => {
      if (r.method !== 'POST') return HttpResponse.text(`login form, back to ${getTargetPath(r) ?? 'nowhere'}`);
      const roles = String(r.query.get('roles') ?? '').split(',').filter((role) => role !== '');
      logIn(r, { memberId: '42', irmsToken: 'tok-42', roles, rememberMe: r.query.get('remember') === '1' });
      return HttpResponse.text('in');
    },
  },
  { name: 'logout', path: '/logout', controller: () => HttpResponse.text('never runs') },
  { name: 'admin', path: '/admin/:page', controller: page('admin') },
  { name: 'api', path: '/api/:page', methods: ['GET', 'POST', 'HEAD'], controller: page('api') },
  { name: 'internal', path: '/internal', controller: page('internal') },
  { name: 'secure', path: '/secure/:page', controller: page('secure') },
  { name: 'account', path: '/account', controller: page('account') },
  { name: 'anything', path: '/x', controller: page('x') },
  { name: 'asset', path: '/css/app.css', controller: page('css') },
];

const MAIN_ONLY = [{ name: 'main', logoutPath: '/logout' }];

function setup(accessControl: AccessControlRule[], options: AppOptions = {}) {
  return testApp({ routes, firewalls: MAIN_ONLY, loginPath: '/login', accessControl, environment: { APP_SECRET: 'test-secret' }, logFormat: 'json', ...options });
}

type TestApp = ReturnType<typeof setup>['app'];

/** The session (and remember-me) cookie of member 42 logged in with `roles`. */
async function member(app: TestApp, roles: string[] = [], remember = false): Promise<{ cookie: string; remember: string }> {
  const r = await send(app, `/login?roles=${roles.join(',')}${remember ? '&remember=1' : ''}`, { method: 'POST' });
  assert.equal(r.status, 200);
  const cookies = setCookies(r);
  return { cookie: `IRMSSESSID=${cookies.get('IRMSSESSID')!.value}`, remember: `REMEMBERME=${encodeURIComponent(cookies.get('REMEMBERME')?.value ?? '')}` };
}

const JSON_CLIENT = { accept: 'application/json' };

describe('accessControl: roles', () => {
  const rules: AccessControlRule[] = [
    { path: '^/admin/login', roles: 'PUBLIC_ACCESS' },
    { path: '^/admin', roles: ['ROLE_ADMIN'] },
  ];

  test('an anonymous HTML client is sent to the login page, the URL it asked for kept, and the controller does not run', async () => {
    const { app } = setup(rules);
    controllerRuns = 0;
    const r = await send(app, '/admin/users?b=2&a=1');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'http://localhost/login');
    assert.equal(controllerRuns, 0);
    const sid = setCookies(r).get('IRMSSESSID')?.value;
    assert.ok(sid, 'the target path is kept in a new session');
    const form = await send(app, '/login', { headers: { cookie: `IRMSSESSID=${sid}` } });
    assert.equal(await form.text(), 'login form, back to http://localhost/admin/users?a=1&b=2');
  });

  test('an anonymous JSON client gets a 401 problem document', async () => {
    const { app } = setup(rules);
    const r = await send(app, '/admin/users', { headers: JSON_CLIENT });
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('content-type'), 'application/problem+json');
    assert.equal((await r.json()).detail, 'Full authentication is required to access this resource.');
  });

  test('a member without the role gets a 403 "Access Denied.", a member with it the page', async () => {
    const { app } = setup(rules);
    const without = await member(app, ['ROLE_EDITOR']);
    const denied = await send(app, '/admin/users', { headers: { cookie: without.cookie, ...JSON_CLIENT } });
    assert.equal(denied.status, 403);
    assert.equal((await denied.json()).detail, 'Access Denied.');
    assert.equal((await send(app, '/admin/users', { headers: { cookie: without.cookie } })).status, 403, 'HTML clients too: a member is not sent to log in again');

    const admin = await member(app, ['ROLE_ADMIN']);
    const ok = await send(app, '/admin/users', { headers: { cookie: admin.cookie } });
    assert.equal(ok.status, 200);
    assert.equal(await ok.text(), 'admin:42');
  });

  test('a PUBLIC_ACCESS rule listed first opens a sub-path of a protected prefix; the order decides', async () => {
    const { app } = setup(rules);
    assert.equal(await (await send(app, '/admin/login')).text(), 'admin:anonymous');
    assert.equal((await send(app, '/admin/login-help')).status, 200, 'the path is a regex: ^/admin/login matches this too, as in Symfony');
    const reversed = setup([rules[1], rules[0]]).app;
    assert.equal((await send(reversed, '/admin/login')).status, 302, 'the first matching rule decides alone');
  });

  test('the path is matched URL-decoded, so an escaped letter does not get past a rule', async () => {
    const { app } = setup([{ path: '^/admin/users$', roles: 'ROLE_ADMIN' }]);
    assert.equal((await send(app, '/admin/%75sers')).status, 302);
    assert.equal((await send(app, '/admin/other')).status, 200);
  });

  test('regression: a rule ending in `$` let a trailing %0A (newline) reach the page it protects; PCRE\'s `$`, as Symfony reads it, matches before a final newline', async () => {
    const { app } = setup([{ path: '^/admin/users$', roles: 'ROLE_ADMIN' }, { path: '\\A/account\\z', roles: 'ROLE_ADMIN' }]);
    controllerRuns = 0;
    assert.equal((await send(app, '/admin/users%0A', { headers: JSON_CLIENT })).status, 401, 'the route serves page "users\\n", a rule must not let it through');
    assert.equal((await send(app, '/admin/users%0A%0A', { headers: JSON_CLIENT })).status, 200, 'only one final newline, as in PCRE');
    assert.equal((await send(app, '/account', { headers: JSON_CLIENT })).status, 401, '\\A and \\z are anchors, not the letters A and z');
    assert.equal(controllerRuns, 1);
  });

  test('inside a character class `$` is a literal, and a `]` first in the class is a member, as PCRE reads them', async () => {
    const { app } = setup([{ path: '^/admin/[$]', roles: 'ROLE_ADMIN' }, { path: '^/api/[]a]', roles: 'ROLE_ADMIN' }]);
    assert.equal((await send(app, '/admin/$x', { headers: JSON_CLIENT })).status, 401);
    assert.equal((await send(app, '/admin/(x', { headers: JSON_CLIENT })).status, 200, 'the class holds `$` only, not an end-of-subject test');
    assert.equal((await send(app, '/api/a', { headers: JSON_CLIENT })).status, 401, '`[]a]` is the class of `]` and `a`');
    assert.equal((await send(app, '/api/%5D', { headers: JSON_CLIENT })).status, 401);
    assert.equal((await send(app, '/api/b', { headers: JSON_CLIENT })).status, 200);
  });

  test('any one of several roles grants access (Symfony\'s affirmative decision), and a comma-separated string is a list', async () => {
    const { app } = setup([{ path: '^/account', roles: 'ROLE_A, ROLE_B' }]);
    const b = await member(app, ['ROLE_B']);
    assert.equal((await send(app, '/account', { headers: { cookie: b.cookie } })).status, 200);
    const c = await member(app, ['ROLE_C']);
    assert.equal((await send(app, '/account', { headers: { cookie: c.cookie } })).status, 403);
  });

  test('a rule that requires something authenticates a lazy GET at kernel.request; a PUBLIC_ACCESS rule leaves it lazy', async () => {
    const seen: string[] = [];
    const { app } = setup([{ path: '^/account', roles: 'PUBLIC_ACCESS' }, { path: '^/admin', roles: 'ROLE_USER' }], {
      listeners: [{ hook: 'kernel.request', placement: { priority: 1 }, listener: { id: 'App\\Spy::onKernelRequest', role: 'spy', call(event) { seen.push(`${event.request.pathInfo} ${getMember(event.request)?.memberId ?? '-'}`); } } }],
    });
    const { cookie } = await member(app);
    assert.equal((await send(app, '/admin/users', { headers: { cookie } })).status, 200);
    assert.equal((await send(app, '/account', { headers: { cookie } })).status, 200);
    assert.deepEqual(seen.slice(-2), ['/admin/users 42', '/account -']);
  });

  test('on a lazy firewall the rules apply before the logout path is logged out (LazyFirewallContext runs before the LogoutListener); a rule opening it lets the logout run', async () => {
    const denied = setup([{ path: '^/', roles: 'ROLE_USER' }]);
    const r = await send(denied.app, '/logout');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'http://localhost/login');
    const open = setup([{ path: '^/logout', roles: 'PUBLIC_ACCESS' }, { path: '^/', roles: 'ROLE_USER' }]);
    const out = await send(open.app, '/logout');
    assert.equal(out.status, 302);
    assert.equal(out.headers.get('location'), 'http://localhost/');
  });

  test('rules do not apply on a firewall without security', async () => {
    const { app } = setup([{ path: '^/css', roles: 'ROLE_ADMIN' }, { path: '^/css', requiresChannel: 'https' }], { firewalls: [{ name: 'dev', pattern: '^/css/', security: false }, ...MAIN_ONLY] });
    assert.equal((await send(app, '/css/app.css')).status, 200);
  });

  test('a rule with allowIf grants access when it answers true, synchronously or not', async () => {
    const { app } = setup([
      { path: '^/internal', allowIf: ({ request }) => request.query.get('key') === 'open' },
      { path: '^/account', roles: 'ROLE_ADMIN', allowIf: async ({ member }) => member?.memberId === '42' },
    ]);
    assert.equal((await send(app, '/internal?key=open')).status, 200);
    assert.equal((await send(app, '/internal?key=shut')).status, 302);
    assert.equal((await send(app, '/account', { headers: JSON_CLIENT })).status, 401);
    const { cookie } = await member(app);
    assert.equal((await send(app, '/account', { headers: { cookie } })).status, 200, 'allowIf or one of the roles');
  });
});

test('in production the rules apply alike: 302 to the login page, 401 for JSON, 403 for a member without the role', async () => {
  const { app } = setup([{ path: '^/admin', roles: 'ROLE_ADMIN' }], { env: 'prod' });
  assert.equal(app.config.debug, false);
  assert.equal((await send(app, '/admin/users')).headers.get('location'), 'http://localhost/login');
  assert.equal((await send(app, '/admin/users', { headers: JSON_CLIENT })).status, 401);
  const { cookie } = await member(app, ['ROLE_EDITOR']);
  assert.equal((await send(app, '/admin/users', { headers: { cookie } })).status, 403);
  assert.equal((await send(app, '/x')).status, 200);
});

describe('accessControl: request matching', () => {
  test('methods are matched upper-cased, and only those listed', async () => {
    const { app } = setup([{ path: '^/api', methods: ['post'], roles: 'ROLE_WRITER' }]);
    assert.equal((await send(app, '/api/orders', { headers: JSON_CLIENT })).status, 200);
    assert.equal((await send(app, '/api/orders', { method: 'POST', headers: JSON_CLIENT })).status, 401);
  });

  test('ips are matched against the client IP, CIDR ranges included', async () => {
    const { app } = setup([
      { path: '^/internal', ips: ['10.0.0.0/8', '::1'], roles: 'PUBLIC_ACCESS' },
      { path: '^/internal', roles: 'ROLE_ADMIN' },
    ]);
    assert.equal((await send(app, '/internal', { remoteAddress: '10.20.30.40' })).status, 200);
    assert.equal((await send(app, '/internal', { remoteAddress: '::1' })).status, 200);
    assert.equal((await send(app, '/internal', { remoteAddress: '192.168.1.1' })).status, 302);
  });

  test('the host is matched case-insensitively, and the port', async () => {
    const { app } = setup([
      { host: '^ADMIN\\.example\\.com$', roles: 'ROLE_ADMIN' },
      { port: 8443, roles: 'ROLE_ADMIN' },
    ]);
    assert.equal((await send(app, 'http://admin.example.com/x', { headers: JSON_CLIENT })).status, 401);
    assert.equal((await send(app, 'http://www.example.com/x', { headers: JSON_CLIENT })).status, 200);
    assert.equal((await send(app, 'http://www.example.com:8443/x', { headers: JSON_CLIENT })).status, 401);
  });
});

describe('accessControl: requiresChannel', () => {
  test('a plain-HTTP request is redirected (301) to the https URL, before authentication, and the redirect is logged', async () => {
    const { app, lines } = setup([{ path: '^/secure', requiresChannel: 'https', roles: 'ROLE_ADMIN' }]);
    const r = await send(app, '/secure/page?b=2&a=1');
    assert.equal(r.status, 301);
    assert.equal(r.headers.get('location'), 'https://localhost/secure/page?a=1&b=2');
    assert.ok(records(lines).some((l) => l.channel === 'security' && l.level_name === 'INFO' && l.message === 'Redirecting to HTTPS.'));
    assert.equal((await send(app, 'https://localhost/secure/page', { headers: JSON_CLIENT })).status, 401, 'over https the roles apply');
  });

  test('a plain-HTTP request carrying X-Forwarded-Proto from an untrusted peer is redirected with Symfony\'s hint in the log', async () => {
    const { app, lines } = setup([{ path: '^/secure', requiresChannel: 'https' }]);
    const r = await send(app, '/secure/page', { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(r.status, 301);
    assert.ok(records(lines).some((l) => l.message === 'Redirecting to HTTPS. ("X-Forwarded-Proto" header is set to "https" - did you set "trusted_proxies" correctly?)'));
  });

  test('requiresChannel "http" sends https requests back to http', async () => {
    const { app } = setup([{ path: '^/secure', requiresChannel: 'http' }]);
    const r = await send(app, 'https://localhost/secure/page');
    assert.equal(r.status, 301);
    assert.equal(r.headers.get('location'), 'http://localhost/secure/page');
  });
});

describe('accessControl: remember-me and stateless firewalls', () => {
  test('a remember-me member is sent to log in again (HTML) or gets a 401 (JSON) where IS_AUTHENTICATED_FULLY is required', async () => {
    const { app } = setup([{ path: '^/account', roles: 'IS_AUTHENTICATED_FULLY' }, { path: '^/x', roles: 'IS_AUTHENTICATED_REMEMBERED' }]);
    const { remember } = await member(app, [], true);
    const html = await send(app, '/account', { headers: { cookie: remember } });
    assert.equal(html.status, 302);
    assert.equal(html.headers.get('location'), 'http://localhost/login');
    assert.equal((await send(app, '/account', { headers: { cookie: remember, ...JSON_CLIENT } })).status, 401);
    assert.equal(await (await send(app, '/x', { headers: { cookie: remember } })).text(), 'x:42');
  });

  test('a stateless firewall checks the bearer token\'s roles: 401 without one, 403 with the wrong roles, 200 with the right ones, no cookie', async () => {
    const { app } = setup([{ path: '^/api', roles: 'ROLE_API' }], { firewalls: [{ name: 'api', pattern: '^/api/', stateless: true }, ...MAIN_ONLY] });
    const anonymous = await send(app, '/api/orders');
    assert.equal(anonymous.status, 401, 'a stateless firewall has no login page');
    const wrong = await signMemberToken(app, { memberId: '7', roles: ['ROLE_OTHER'] });
    assert.equal((await send(app, '/api/orders', { headers: { authorization: `Bearer ${wrong}` } })).status, 403);
    const right = await signMemberToken(app, { memberId: '7', roles: ['ROLE_API'] });
    const ok = await send(app, '/api/orders', { headers: { authorization: `Bearer ${right}` } });
    assert.equal(await ok.text(), 'api:7');
    assert.equal(ok.headers.getSetCookie().length, 0);
  });
});

describe('accessControl: configuration', () => {
  const build = (accessControl: unknown) => () => createApp({ env: 'prod', logSink: () => {}, environment: {}, accessControl: accessControl as AccessControlRule[] });

  test('bad rules are refused when the app is built, with what is wrong', () => {
    const refused: [unknown, RegExp][] = [
      [{ path: '^/a' }, /must be an array of access control rules/],
      [[{ path: '^/a', role: 'ROLE_A' }], /rule 0 has an unknown key "role" \(did you mean "roles"\?\)/],
      [[{ path: '^/a', allow_if: 'is_granted("A")' }], /unknown key "allow_if" \(did you mean "allowIf"\?\)/],
      [[{ path: '^/a', roles: 'ROLE_A' }, { path: '^/(b' }], /rule 1 "path" does not compile/],
      [[{ host: 42 }], /rule 0 "host" must be a regex/],
      [[{ path: '^/a', roles: ['ROLE_A', 42] }], /rule 0 "roles" must be a role or a list of roles \(non-empty strings\), got 42/],
      [[{ path: '^/a', roles: '' }], /"roles" must be a role/],
      [[{ ips: ['10.0.0.0/33'] }], /"ips" has "10\.0\.0\.0\/33", which is not a valid IP address or range/],
      [[{ ips: 'localhost' }], /"ips" has "localhost"/],
      [[{ port: '80' }], /"port" must be a port number, got "80"/],
      [[{ path: '^/a', allowIf: 'is_granted("ROLE_A")' }], /"allowIf" must be a function .*Symfony expressions are not evaluated/],
      [[{ path: '^/a', requiresChannel: 'ftp' }], /"requiresChannel" must be "http" or "https"/],
      [[{ methods: ['GE T'] }], /"methods" has "GE T", which is no method/],
      [[{}], /rule 0 is empty/],
      [[{ path: '^/a' }, { roles: [], path: '' }], /rule 1 is empty/],
      [['^/a'], /must be an array of access control rules .*got "\^\/a" \(a string\) at index 0/],
    ];
    for (const [value, message] of refused) assert.throws(build(value), { message }, JSON.stringify(value));
  });

  test('well-formed rules are accepted, RegExp patterns included', () => {
    build([{ path: /^\/a/g, host: /example/, methods: 'GET, POST', ips: '10.0.0.1, ::1/128', port: 443, roles: ['ROLE_A'], allowIf: () => true, requiresChannel: 'https' }, { path: '^/b' }])();
    build([])();
  });
});

test("the README's accessControl example is accepted as written and does what the text says", async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /`createApp\(\{ accessControl \}\)` is Symfony's[^]*?```js\n([^]*?)```/.exec(readme);
  assert.ok(block, 'README.md shows an accessControl example under "Logging in members"');
  // The block is a property as written in a createApp call (plain JavaScript, no types).
  const { accessControl } = new Function(`return { ${block[1]} };`)() as { accessControl: AccessControlRule[] };
  const { app } = setup(accessControl, { routes: [...routes, { name: 'admin_login', path: '/admin/login', controller: page('admin login') }] });
  assert.equal((await send(app, 'https://localhost/admin/login')).status, 200);
  assert.equal((await send(app, 'http://localhost/admin/users')).status, 301);
  assert.equal((await send(app, 'https://localhost/admin/users')).status, 302);
  assert.equal((await send(app, '/api/orders', { method: 'POST', headers: JSON_CLIENT })).status, 401);
  assert.equal((await send(app, '/api/orders')).status, 200);
  assert.equal((await send(app, '/internal', { remoteAddress: '10.1.1.1', headers: JSON_CLIENT })).status, 200);
  assert.equal((await send(app, '/internal', { remoteAddress: '192.168.1.1', headers: { 'x-probe': '1', ...JSON_CLIENT } })).status, 200);
  assert.equal((await send(app, '/internal', { remoteAddress: '192.168.1.1', headers: JSON_CLIENT })).status, 401);
});
