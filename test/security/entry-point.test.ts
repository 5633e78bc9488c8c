import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessDeniedException, HttpResponse, getMember, logIn, type AppOptions, type RouteDefinition } from '../../src/index.ts';
import { FirewallMap } from '../../src/security/firewall-map.ts';
import { records, send, setCookies, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'login', path: '/login', methods: ['POST'], controller: (r) => { logIn(r, { memberId: 'm1', irmsToken: 'tok-m1', roles: ['ROLE_MEMBER'] }); return HttpResponse.text('in'); } },
  { name: 'granted', path: '/granted', controller: () => HttpResponse.text('admin'), options: { isGranted: 'ROLE_ADMIN' } },
  { name: 'secured', path: '/secured', controller: () => HttpResponse.text('secured'), options: { security: (c) => c.isGranted('ROLE_ADMIN') } },
  { name: 'thrown', path: '/thrown', controller: () => { throw new AccessDeniedException('Editors only.'); } },
  { name: 'admin_granted', path: '/admin/granted', controller: () => HttpResponse.text('admin'), options: { isGranted: 'ROLE_ADMIN' } },
  {
    name: 'section_page',
    path: '/:section/:page',
    controller: (r) => HttpResponse.json({ firewall: r.attributes.get('_firewall'), section: r.attributes.get('section'), member: getMember(r)?.memberId ?? null }),
    options: { requiresLogin: true },
  },
];

function setup(options: AppOptions = {}) {
  return testApp({ routes, logFormat: 'json', logLevel: 'debug', environment: { APP_SECRET: 'entry-point-secret' }, ...options });
}

const html = { accept: 'text/html' };
const json = { accept: 'application/json' };

function securityLog(lines: string[]) {
  return records(lines).filter((r) => r.channel === 'security').map((r) => [r.level_name, r.message]);
}

test('regression: an anonymous HTML visitor denied by the isGranted or security option got a 401 page although the firewall has a login path; Symfony\'s entry point redirects there', async () => {
  const { app, lines } = setup({
    loginPath: '/login',
    firewalls: [
      { name: 'admin', pattern: '^/admin', context: 'admin', loginPath: '/admin/login' },
      { name: 'main', context: 'main' },
    ],
  });
  for (const path of ['/granted', '/secured', '/thrown']) {
    for (const method of ['GET', 'HEAD']) {
      const r = await send(app, path, { method, headers: html });
      assert.equal(r.status, 302, `${method} ${path}`);
      assert.equal(r.headers.get('location'), 'http://localhost/login', `${method} ${path}`);
    }
    const api = await send(app, path, { headers: json });
    assert.equal(api.status, 401, `JSON client of ${path}`);
    assert.equal((await api.json()).detail, 'Full authentication is required to access this resource.');
    const xhr = await send(app, path, { headers: { ...html, 'x-requested-with': 'XMLHttpRequest' } });
    assert.equal(xhr.status, 401, `XHR to ${path}`);
  }
  const admin = await send(app, '/admin/granted', { headers: html });
  assert.equal(admin.headers.get('location'), 'http://localhost/admin/login', 'the firewall\'s own entry point');

  lines.length = 0;
  await send(app, '/granted', { headers: html });
  assert.deepEqual(securityLog(lines), [
    ['DEBUG', 'Access denied, the user is not fully authenticated; redirecting to authentication entry point.'],
    ['DEBUG', 'Calling Authentication entry point.'],
  ]);

  const sid = setCookies(await send(app, '/login', { method: 'POST' })).get('IRMSSESSID')!.value;
  const member = await send(app, '/granted', { headers: { ...html, cookie: `IRMSSESSID=${sid}` } });
  assert.equal(member.status, 403, 'a fully authenticated member lacking the role is refused, not redirected');
});

test('regression: the isGranted and security options denied anonymous requests without Symfony\'s security log lines', async () => {
  const { app, lines } = setup();
  for (const path of ['/granted', '/secured']) {
    lines.length = 0;
    const r = await send(app, path, { headers: json });
    assert.equal(r.status, 401, path);
    assert.equal((await r.json()).detail, 'Full authentication is required to access this resource.');
    assert.deepEqual(securityLog(lines), [
      ['DEBUG', 'Access denied, the user is not fully authenticated; redirecting to authentication entry point.'],
      ['NOTICE', 'No Authentication entry point configured, returning a 401 HTTP response. Configure "entry_point" on the firewall "main" if you want to modify the response.'],
    ], path);
  }
});

test('regression: one malformed escape left the whole path undecoded for the firewall, so /%61dmin/%ZZ escaped the admin firewall and its login context', async () => {
  const map = new FirewallMap();
  assert.equal(map.match('/%61dmin/%ZZ')?.name, 'admin');
  assert.equal(map.match('/%61dmin/%E0%A4%A')?.name, 'admin');
  assert.equal(map.match('/_profiler/%zz')?.name, 'dev');

  const { app } = setup();
  const sid = setCookies(await send(app, '/login', { method: 'POST' })).get('IRMSSESSID')!.value;
  const cookie = `IRMSSESSID=${sid}`;
  const site = await send(app, '/blog/1', { headers: { ...json, cookie } });
  assert.deepEqual(await site.json(), { firewall: 'main', section: 'blog', member: 'm1' });
  for (const path of ['/%61dmin/1', '/%61dmin/%ZZ', '/%61dmin/100%']) {
    const r = await send(app, path, { headers: { ...json, cookie } });
    assert.equal(r.status, 401, `${path}: the member of main is anonymous under the admin firewall`);
  }
});
