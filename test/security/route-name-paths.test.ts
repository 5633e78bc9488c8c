import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, logoutUrl, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

/** Symfony's security.yaml names routes (`login_path: app_login`, `logout: path: app_logout`); so may a firewall here. */
const routes: RouteDefinition[] = [
  { name: 'app_login', path: '/sign-in', controller: () => HttpResponse.text('login form') },
  { name: 'app_logout', path: '/sign-out', controller: () => { throw new Error('intercepted by the firewall'); } },
  { name: 'page', path: '/page', controller: (r) => HttpResponse.text(String(logoutUrl(r))) },
  { name: 'account', path: '/account', controller: () => HttpResponse.text('account'), options: { requiresLogin: true } },
];

test('regression: logoutUrl() gave a logoutPath that names a route as written (a link to href="app_logout"); it is the route\'s path, as LogoutUrlGenerator makes it', async () => {
  const { app } = testApp({ routes, firewalls: [{ name: 'main', logoutPath: 'app_logout' }] });
  assert.equal(await (await send(app, '/page')).text(), '/sign-out');
});

test('regression: a loginPath that names a route was sent as Location: app_login (relative to the page); it is the route\'s absolute URL, as HttpUtils::generateUri makes it', async () => {
  const { app } = testApp({ routes, firewalls: [{ name: 'main', loginPath: 'app_login' }] });
  const r = await send(app, '/account', { headers: { accept: 'text/html' } });
  assert.equal(r.status, 302);
  assert.equal(r.headers.get('location'), 'http://localhost/sign-in');
});

test('paths and URLs stay as written', async () => {
  const cases: [string, string][] = [
    ['/login', 'http://localhost/login'],
    ['https://sso.example/login', 'https://sso.example/login'],
  ];
  for (const [loginPath, location] of cases) {
    const { app } = testApp({ routes, firewalls: [{ name: 'main', loginPath }] });
    const r = await send(app, '/account', { headers: { accept: 'text/html' } });
    assert.equal(r.headers.get('location'), location, loginPath);
  }
});

test('regression: a loginPath, logoutTarget or logoutPath naming no route (a typo) was left as written: Location: app_logn, resolved next to the page asked for (a 404), and a logout that never ran; the app is not built', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ loginPath: 'app_logn' }, /^Error: Firewall "main": loginPath "app_logn" is no path, no URL and no route's name \(did you mean "app_login"\?\)/],
    [{ logoutPath: '/sign-out', logoutTarget: 'pag' }, /^Error: Firewall "main": logoutTarget "pag" is no path, no URL and no route's name \(did you mean "page"\?\)/],
    [{ logoutPath: 'app_logot' }, /^Error: Firewall "main": logoutPath "app_logot" is no path, no URL and no route's name \(did you mean "app_logout"\?\)/],
  ];
  for (const [settings, message] of cases) {
    assert.throws(() => testApp({ routes, firewalls: [{ name: 'main', ...settings }] }), message, JSON.stringify(settings));
  }
  assert.throws(() => testApp({ routes, environment: { LOGIN_PATH: 'app_logn' } }), /^Error: LOGIN_PATH "app_logn" is no path/);
});

test('regression: a loginPath naming a route with a path variable (`/t/{tenant}/login`) was sent as Location: app_login; the variable is filled from the request, as HttpUtils::generateUri passes its attributes', async () => {
  const routes: RouteDefinition[] = [
    { name: 'tenant_login', path: '/t/:tenant/login', controller: () => HttpResponse.text('login form') },
    { name: 'tenant_account', path: '/t/:tenant/account', controller: () => HttpResponse.text('account'), options: { requiresLogin: true } },
  ];
  const { app } = testApp({ routes, firewalls: [{ name: 'main', loginPath: 'tenant_login' }] });
  const r = await send(app, '/t/acme/account?tab=orders', { headers: { accept: 'text/html' } });
  assert.equal(r.status, 302);
  assert.equal(r.headers.get('location'), 'http://localhost/t/acme/login', 'the other attributes (route name, firewall…) are no query string');
});

test('regression: logoutUrl() gave a logout route that needs parameters as its bare name (href="app_logout", a link that logs no one out); it throws, as LogoutUrlGenerator\'s router does', async () => {
  const routes: RouteDefinition[] = [
    { name: 'app_logout', path: '/t/:tenant/logout', controller: () => { throw new Error('intercepted by the firewall'); } },
    { name: 'page', path: '/t/:tenant/page', controller: (r) => HttpResponse.text(String(logoutUrl(r))) },
  ];
  const { app } = testApp({ routes, firewalls: [{ name: 'main', logoutPath: 'app_logout' }] });
  const r = await send(app, '/t/acme/page', { headers: { accept: 'application/json' } });
  assert.equal(r.status, 500);
  assert.match((await r.json()).detail, /Some mandatory parameters are missing \("tenant"\) to generate a URL for route "app_logout"/);
});

test('regression: a loginPath or logoutTarget route that this request could not fill (a variable no attribute gives) was sent as Location: tenant_login, a redirect that led nowhere; it is the generator\'s error, a 500, as HttpUtils::generateUri lets it through', async () => {
  const routes: RouteDefinition[] = [
    { name: 'tenant_login', path: '/t/:tenant/login', controller: () => HttpResponse.text('login form') },
    { name: 'account', path: '/account', controller: () => HttpResponse.text('account'), options: { requiresLogin: true } },
    { name: 'sign_out', path: '/sign-out', controller: () => HttpResponse.text('never called') },
  ];
  const { app, lines } = testApp({ routes, firewalls: [{ name: 'main', loginPath: 'tenant_login', logoutPath: '/sign-out', logoutTarget: 'tenant_login' }] });
  const message = 'Some mandatory parameters are missing ("tenant") to generate a URL for route "tenant_login".';
  for (const path of ['/account', '/sign-out']) {
    const r = await send(app, path, { headers: { accept: 'text/html' } });
    assert.equal(r.status, 500, path);
    assert.equal(r.headers.get('location'), null, path);
    assert.equal(decodeURIComponent(r.headers.get('x-debug-exception') ?? ''), message, path);
  }
  assert.equal(lines.filter((l) => l.includes('request.CRITICAL: Uncaught Exception MissingMandatoryParametersException')).length, 2);
});
