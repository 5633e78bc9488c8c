import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessDeniedException, AuthenticationException, HttpResponse, listener, logIn, MemorySessionStore, signMemberToken, type AppOptions, type RouteDefinition } from '../../src/index.ts';
import { records, send, setCookies, testApp } from '../pipeline/harness.ts';

/** Symfony's security ExceptionListener (kernel.exception, registered by the firewall for its requests). */
const routes: RouteDefinition[] = [
  { name: 'denied', path: '/denied', controller: () => { throw new AccessDeniedException('Only editors may do this.'); } },
  { name: 'unauthenticated', path: '/unauthenticated', controller: () => { throw new AuthenticationException('The token has expired.'); } },
  { name: 'open_denied', path: '/open/denied', controller: () => { throw new AccessDeniedException(); } },
  { name: 'plain_error', path: '/broken', controller: () => { throw new Error('plain failure'); } },
  { name: 'login', path: '/login', methods: ['POST'], controller: (r) => { logIn(r, { memberId: '7', irmsToken: 'tok-7', roles: ['ROLE_MEMBER'] }); return HttpResponse.text('in'); } },
];

const options: AppOptions = {
  routes,
  logFormat: 'json',
  logLevel: 'debug',
  environment: { APP_SECRET: 'exception-listener-secret' },
  firewalls: [
    { name: 'open', pattern: /^\/open\//, security: false },
    { name: 'main', lazy: true, context: 'main' },
  ],
};

async function problem(response: Response) {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const json = { accept: 'application/json' };

test('regression: a controller throwing the exported AccessDeniedException got a 500; an anonymous request gets a 401, a member a 403', async () => {
  for (const env of ['dev', 'prod'] as const) {
    const { app } = testApp({ ...options, env });
    const anonymous = await problem(await send(app, '/denied', { headers: json }));
    assert.equal(anonymous.status, 401, env);
    if (env === 'dev') {
      assert.equal(anonymous.body.detail, 'Full authentication is required to access this resource.');
      assert.equal(anonymous.body.class, 'HttpException');
    }
    const token = await signMemberToken(app, { memberId: '7', roles: ['ROLE_MEMBER'] });
    const member = await problem(await send(app, '/denied', { headers: { ...json, authorization: `Bearer ${token}` } }));
    assert.equal(member.status, 403, env);
    if (env === 'dev') {
      assert.equal(member.body.detail, 'Only editors may do this.');
      assert.equal(member.body.class, 'AccessDeniedHttpException');
    }
  }
});

test('regression: a thrown AuthenticationException got a 500; it is a 401 with its message, logged as Symfony logs it', async () => {
  const { app, lines } = testApp(options);
  const { status, body } = await problem(await send(app, '/unauthenticated', { headers: json }));
  assert.equal(status, 401);
  assert.equal(body.detail, 'The token has expired.');
  const security = records(lines).filter((r) => r.channel === 'security');
  assert.deepEqual(security.map((r) => [r.level_name, r.message]), [
    ['INFO', 'An AuthenticationException was thrown; redirecting to authentication entry point.'],
    ['NOTICE', 'No Authentication entry point configured, returning a 401 HTTP response. Configure "entry_point" on the firewall "main" if you want to modify the response.'],
  ]);
  const uncaught = records(lines).find((r) => r.message.startsWith('Uncaught Exception'))!;
  assert.equal(uncaught.level_name, 'ERROR');
  assert.match(uncaught.message, /^Uncaught Exception HttpException: "The token has expired\."/);
});

test('the chain the error page shows: HttpException ← InsufficientAuthenticationException ← AccessDeniedException', async () => {
  const { app } = testApp(options);
  const page = await (await send(app, '/denied')).text();
  const order = ['HttpException', 'InsufficientAuthenticationException', 'AccessDeniedException'].map((name) => page.indexOf(`>${name}<`));
  assert.ok(order.every((at) => at > 0), JSON.stringify(order));
});

test('only firewalls with security register it: under `security: false` the exception stays a 500, as in Symfony', async () => {
  const { app } = testApp(options);
  assert.equal((await send(app, '/open/denied', { headers: json })).status, 500);
});

test('debug: it is called first in kernel.exception when the firewall ran, and absent when routing failed before the firewall', async () => {
  const calls = async (path: string) => {
    let seen: string[] = [];
    const spy = testApp({
      ...options,
      listeners: [{ hook: 'kernel.exception', listener: { id: 'Spy::onKernelException', role: 'spy', call: (event) => void (seen = (event.request.trace ?? []).filter((c) => c.hook === 'kernel.exception').map((c) => c.listener)) }, placement: { before: 'ErrorListener::onKernelException' } }],
    });
    await send(spy.app, path);
    return seen;
  };
  assert.equal((await calls('/broken'))[0], 'ExceptionListener::onKernelException');
  assert.ok(!(await calls('/nowhere')).includes('ExceptionListener::onKernelException'));
  assert.ok(!(await calls('/open/denied')).includes('ExceptionListener::onKernelException'));
});

test('regression: a GET denied by a kernel.request listener sent a logged-in member to the entry point (the lazy firewall had not read the session yet); it is a 403', async () => {
  const guard = listener<'kernel.request'>('App::guard', 'guard', (event) => {
    if (event.request.pathInfo === '/guarded') throw new AccessDeniedException('Members of group X only.');
  });
  const { app } = testApp({
    ...options,
    routes: [...routes, { name: 'guarded', path: '/guarded', methods: ['GET', 'POST'], controller: () => HttpResponse.text('in') }],
    sessionStore: new MemorySessionStore(),
    environment: { APP_SECRET: 'exception-listener-secret', LOGIN_PATH: '/login' },
    listeners: [{ hook: 'kernel.request', listener: guard }],
  });
  const cookie = `IRMSSESSID=${setCookies(await send(app, '/login', { method: 'POST' })).get('IRMSSESSID')!.value}`;
  for (const method of ['GET', 'HEAD', 'POST']) {
    const member = await send(app, '/guarded', { method, headers: { cookie, accept: 'text/html' } });
    assert.equal(member.status, 403, method);
    assert.equal(member.headers.get('location'), null, method);
  }
  // Anonymous requests still go to the entry point.
  const anonymous = await send(app, '/guarded', { headers: { accept: 'text/html' } });
  assert.equal(anonymous.status, 302);
  assert.equal(anonymous.headers.get('location'), 'http://localhost/login');
});

test('regression: an application kernel.exception listener placed above the firewall\'s ExceptionListener (priority 1) never saw a security exception; it answers first, as in Symfony', async () => {
  for (const env of ['dev', 'prod'] as const) {
    const seen: string[] = [];
    const custom = listener<'kernel.exception'>('App::deniedAsJson', 'custom denial', (event) => {
      seen.push(event.throwable.constructor.name);
      if (event.throwable instanceof AccessDeniedException) event.setResponse(HttpResponse.json({ error: 'denied by the app' }, 403));
    }, 10);
    const below = listener<'kernel.exception'>('App::below', 'after the firewall', (event) => void seen.push(`below ${event.throwable.constructor.name}`), 0);
    const { app } = testApp({ ...options, env, listeners: [{ hook: 'kernel.exception', listener: custom }, { hook: 'kernel.exception', listener: below }] });
    const denied = await send(app, '/denied', { headers: json });
    assert.equal(denied.status, 403, env);
    assert.deepEqual(await denied.json(), { error: 'denied by the app' }, env);
    assert.deepEqual(seen, ['AccessDeniedException'], `${env}: the listener placed higher ran first and ended the hook`);
    seen.length = 0;
    // A listener placed below the firewall's runs after it: it sees the HttpException the firewall made of the denial.
    const anonymous = await send(app, '/unauthenticated', { headers: json });
    assert.equal(anonymous.status, 401, env);
    assert.deepEqual(seen, ['AuthenticationException', 'below HttpException'], env);
  }
});

test('regression: on a stateless firewall an isGranted or security denial was a 401 without WWW-Authenticate and a NOTICE to configure an entry_point irms-web has no option for; it answers as requiresLogin does there', async () => {
  const apiRoutes: RouteDefinition[] = [
    { name: 'api_login_only', path: '/api/a', controller: () => HttpResponse.text('a'), options: { requiresLogin: true } },
    { name: 'api_role', path: '/api/b', controller: () => HttpResponse.text('b'), options: { isGranted: 'ROLE_API' } },
    { name: 'api_security', path: '/api/c', controller: () => HttpResponse.text('c'), options: { security: (c) => c.isGranted('ROLE_API') } },
  ];
  const { app, lines } = testApp({ ...options, routes: apiRoutes, firewalls: [{ name: 'api', pattern: '^/api/', stateless: true }] });
  for (const path of ['/api/a', '/api/b', '/api/c']) {
    for (const accept of ['application/json', 'text/html']) {
      const r = await send(app, path, { headers: { accept } });
      assert.equal(r.status, 401, `${path} ${accept}`);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer', `${path} ${accept}`);
    }
  }
  assert.equal(records(lines).filter((r) => r.message.includes('entry_point')).length, 0, 'no advice about an option that does not exist');
});
