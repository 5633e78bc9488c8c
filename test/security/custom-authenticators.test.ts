import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AuthenticationException,
  BadCredentialsException,
  createApp,
  csrfToken,
  CustomUserMessageAuthenticationException,
  getMember,
  HttpResponse,
  InsufficientAuthenticationException,
  isCsrfTokenValid,
  logIn,
  MemorySessionStore,
  signMemberToken,
  type CustomAuthenticator,
  type KernelRequest,
  type RouteDefinition,
} from '../../src/index.ts';
import { records, send, setCookies, testApp } from '../pipeline/harness.ts';

const SECRET = 'custom-authenticators-secret';
const API_TOKENS: Record<string, { memberId: string; roles: string[] }> = {
  'key-reader': { memberId: 'reader', roles: ['ROLE_API'] },
  'key-admin': { memberId: 'admin', roles: ['ROLE_ADMIN'] },
};

/** The ApiKeyAuthenticator of Symfony's "Custom Authenticator" documentation, ported. */
class ApiKeyAuthenticator implements CustomAuthenticator {
  supports(request: KernelRequest): boolean {
    return request.headers.has('x-auth-token');
  }
  authenticate(request: KernelRequest) {
    const key = request.headers.get('x-auth-token') ?? '';
    if (key === '') throw new CustomUserMessageAuthenticationException('No API token provided');
    const member = API_TOKENS[key];
    return member ? { ...member, irmsToken: key } : null;
  }
  onAuthenticationFailure(_request: KernelRequest, error: AuthenticationException) {
    return HttpResponse.json({ message: error.messageKey }, 401);
  }
}

const routes: RouteDefinition[] = [
  { name: 'api_me', path: '/api/me', controller: (r) => HttpResponse.json(getMember(r)) },
  { name: 'api_admin', path: '/api/admin', controller: () => HttpResponse.text('admin area') },
  { name: 'json_login', path: '/login', methods: ['POST'], controller: () => HttpResponse.text('the authenticator answers first') },
  { name: 'account', path: '/account', controller: (r) => HttpResponse.json({ member: getMember(r)?.memberId ?? null, csrfKept: isCsrfTokenValid(r, 'form', r.query.get('csrf')) }) },
  { name: 'csrf', path: '/csrf', controller: (r) => HttpResponse.text(csrfToken(r, 'form')) },
];

function apiApp(extra: Parameters<typeof createApp>[0] = {}) {
  return testApp({
    env: 'prod',
    debug: false,
    logFormat: 'json',
    logLevel: 'debug',
    routes,
    environment: { APP_SECRET: SECRET },
    firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [new ApiKeyAuthenticator()] }],
    accessControl: [{ path: '^/api/admin', roles: 'ROLE_EDITOR' }, { path: '^/api', roles: 'ROLE_API' }],
    roleHierarchy: { ROLE_ADMIN: ['ROLE_EDITOR', 'ROLE_API'] },
    ...extra,
  });
}

test('a custom authenticator that supports the request authenticates its member before access control, roles from the hierarchy', async () => {
  const { app, lines } = apiApp();
  const me = await send(app, '/api/me', { headers: { 'x-auth-token': 'key-reader' } });
  assert.equal(me.status, 200);
  assert.deepEqual(await me.json(), { memberId: 'reader', irmsToken: 'key-reader', roles: ['ROLE_API'], authenticatedBy: 'authenticator', reachableRoles: ['ROLE_API', 'ROLE_USER'] });
  assert.equal((await send(app, '/api/admin', { headers: { 'x-auth-token': 'key-admin' } })).status, 200, 'ROLE_ADMIN reaches ROLE_EDITOR');
  assert.equal((await send(app, '/api/admin', { headers: { 'x-auth-token': 'key-reader', accept: 'application/json' } })).status, 403);
  assert.equal(me.headers.get('set-cookie'), null, 'a stateless firewall starts no session');
  assert.ok(records(lines).some((r) => r.message === 'Authenticator successful!' && r.context.authenticator === 'ApiKeyAuthenticator'), 'the expected log line');
});

test('regression: "Authenticator successful!" was logged at DEBUG; Symfony 5.4\'s AuthenticatorManager logs it at INFO, so an app logging at info lost it', async () => {
  const { app, lines } = apiApp({ logLevel: 'info' });
  await send(app, '/api/me', { headers: { 'x-auth-token': 'key-reader' } });
  assert.deepEqual(records(lines).filter((r) => r.message === 'Authenticator successful!').map((r) => r.level_name), ['INFO']);
});

test('a failed custom authentication is answered by onAuthenticationFailure, with the message key meant for the client, before any controller', async () => {
  const { app, lines } = apiApp();
  const unknown = await send(app, '/api/me', { headers: { 'x-auth-token': 'key-nobody' } });
  assert.equal(unknown.status, 401);
  assert.deepEqual(await unknown.json(), { message: 'Invalid credentials.' }, 'null is a user provider finding no one: BadCredentialsException');
  const empty = await send(app, '/api/me', { headers: { 'x-auth-token': '' } });
  assert.deepEqual(await empty.json(), { message: 'No API token provided' }, 'a CustomUserMessageAuthenticationException is its own message key');
  const failed = records(lines).filter((r) => r.message === 'Authenticator failed.');
  assert.equal(failed.length, 2);
  assert.equal(failed[0]!.level_name, 'INFO');
  assert.equal(failed[0]!.context.authenticator, 'ApiKeyAuthenticator');
});

test('a request no custom authenticator supports goes the usual way: a bearer token, else the entry point', async () => {
  const { app } = apiApp();
  const token = await signMemberToken(SECRET, { memberId: 'bearer-member', roles: ['ROLE_API'] });
  const bearer = await send(app, '/api/me', { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await bearer.json()).authenticatedBy, 'bearer');
  const anonymous = await send(app, '/api/me', { headers: { accept: 'application/json' } });
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
});

test('without onAuthenticationFailure a failed authentication goes on unauthenticated, and the next supporting authenticator still runs', async () => {
  const failing: CustomAuthenticator = { name: 'always-fails', supports: () => true, authenticate: () => { throw new AuthenticationException('nope'); } };
  const header: CustomAuthenticator = { name: 'header', supports: (r) => r.headers.has('x-member'), authenticate: (r) => ({ memberId: r.headers.get('x-member')!, roles: ['ROLE_API'] }) };
  const { app, lines } = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [failing, header] }] });
  assert.equal((await send(app, '/api/me', { headers: { accept: 'application/json' } })).status, 401, 'the access rule then asks for a member');
  const member = await send(app, '/api/me', { headers: { 'x-member': 'grace' } });
  assert.equal((await member.json()).memberId, 'grace');
  assert.ok(records(lines).some((r) => r.message === 'Authenticator failed.' && r.context.authenticator === 'always-fails'), 'the expected log line');
});

test('an error that is no AuthenticationException in authenticate() is the app\'s error: a 500, logged', async () => {
  const broken: CustomAuthenticator = { supports: () => true, authenticate: () => { throw new Error('token table unavailable'); } };
  const { app, lines } = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [broken] }] });
  const response = await send(app, '/api/me');
  assert.equal(response.status, 500);
  assert.ok(records(lines).some((r) => r.level_name === 'CRITICAL' && /token table unavailable/.test(r.message)), 'the expected log line');
});

/** A JSON login on a stateful firewall, as Symfony's json_login or a custom one answers it. */
const jsonLogin: CustomAuthenticator = {
  name: 'JsonLoginAuthenticator',
  supports: (r) => r.pathInfo === '/login' && r.method === 'POST',
  async authenticate(r) {
    const body = (await r.toArray()) as { username?: string; password?: string };
    if (body.password !== 'secret') throw new BadCredentialsException('Wrong password for ' + String(body.username));
    return { memberId: String(body.username), roles: ['ROLE_MEMBER'] };
  },
  onAuthenticationSuccess: (_r, member) => HttpResponse.json({ user: member.memberId }),
  onAuthenticationFailure: (_r, error) => HttpResponse.json({ error: error.messageKey }, 401),
};

test('on a stateful firewall a custom authentication is a login: the session the visitor came with gets a new id and loses its CSRF tokens, and keeps the member', async () => {
  const { app } = testApp({ env: 'prod', debug: false, routes, sessionStore: new MemorySessionStore(), environment: { APP_SECRET: SECRET }, firewalls: [{ name: 'main', customAuthenticators: [jsonLogin] }] });
  const visit = await send(app, '/csrf');
  const before = setCookies(visit).get('IRMSSESSID')!.value;
  const token = await visit.text();
  const login = (body: object, sid: string) => send(app, '/login', { method: 'POST', headers: { 'content-type': 'application/json', cookie: `IRMSSESSID=${sid}` }, body: JSON.stringify(body) });
  const refused = await login({ username: 'ada', password: 'guess' }, before);
  assert.equal(refused.status, 401);
  assert.deepEqual(await refused.json(), { error: 'Invalid credentials.' }, 'the message key, not the message with the username');
  const ok = await login({ username: 'ada', password: 'secret' }, before);
  assert.deepEqual(await ok.json(), { user: 'ada' }, 'onAuthenticationSuccess answered, the controller did not run');
  const after = setCookies(ok).get('IRMSSESSID')!.value;
  assert.notEqual(after, before, 'session fixation: the id changed');
  const account = await (await send(app, `/account?csrf=${encodeURIComponent(token)}`, { headers: { cookie: `IRMSSESSID=${after}` } })).json();
  assert.deepEqual(account, { member: 'ada', csrfKept: false }, 'the session keeps the member; tokens from before the login are void');
  const again = await login({ username: 'ada', password: 'secret' }, after);
  assert.equal(setCookies(again).get('IRMSSESSID'), undefined, 'the same member again: the session keeps its id');
});

test('customAuthenticators of the wrong shape are refused when the app is built', () => {
  const build = (customAuthenticators: unknown, security = true) => () => createApp({ logSink: () => {}, firewalls: [{ name: 'api', security, customAuthenticators: customAuthenticators as CustomAuthenticator[] }] });
  assert.throws(build({}), /Firewall "api": customAuthenticators must be a list of \{ supports\(request\), authenticate\(request\)/);
  assert.throws(build([{ authenticate: () => null }]), /customAuthenticators\[0\] has no supports\(\) function/);
  assert.throws(build([{ supports: () => true, authenticate: () => null, onAuthenticationFailure: 'json' }]), /customAuthenticators\[0\] has a onAuthenticationFailure that is not a function/);
  assert.throws(build([new ApiKeyAuthenticator()], false), /customAuthenticators need security/);
});

test('authentication exceptions carry Symfony\'s message keys', () => {
  assert.equal(new AuthenticationException('internal detail').messageKey, 'An authentication exception occurred.');
  assert.equal(new BadCredentialsException('internal detail').messageKey, 'Invalid credentials.');
  assert.equal(new InsufficientAuthenticationException('internal detail').messageKey, 'Not privileged to request the resource.');
  assert.equal(new CustomUserMessageAuthenticationException('Token expired.').messageKey, 'Token expired.');
});

test('a firewall\'s entryPoint answers every client that must authenticate: an anonymous denial, a thrown AuthenticationException, requiresLogin', async () => {
  const jsonEntry = (_request: KernelRequest, error: AuthenticationException) => HttpResponse.json({ message: 'Authentication Required', key: error.messageKey }, 401);
  const { app } = apiApp({
    firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [new ApiKeyAuthenticator()], entryPoint: { start: jsonEntry } }],
    routes: [...routes, { name: 'api_login_only', path: '/api/private', controller: () => HttpResponse.text('private'), options: { requiresLogin: true } }, { name: 'api_expired', path: '/api/expired', controller: () => { throw new CustomUserMessageAuthenticationException('Token expired.'); } }],
    accessControl: [{ path: '^/api/me', roles: 'ROLE_API' }],
  });
  const denied = await send(app, '/api/me');
  assert.equal(denied.status, 401);
  assert.deepEqual(await denied.json(), { message: 'Authentication Required', key: 'Not privileged to request the resource.' });
  assert.deepEqual(await (await send(app, '/api/private')).json(), { message: 'Authentication Required', key: 'Not privileged to request the resource.' });
  const expired = await send(app, '/api/expired', { headers: { 'x-auth-token': 'key-reader' } });
  assert.equal(expired.status, 401);
  assert.deepEqual(await expired.json(), { message: 'Authentication Required', key: 'Token expired.' });
});

test('a custom authenticator\'s start() is the entry point when it is the only one; two need an explicit entryPoint', async () => {
  class WithStart extends ApiKeyAuthenticator {
    start() {
      return HttpResponse.json({ message: 'Send X-AUTH-TOKEN.' }, 401);
    }
  }
  const { app } = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [new WithStart()] }] });
  const response = await send(app, '/api/me');
  assert.equal(response.status, 401);
  assert.deepEqual(await response.json(), { message: 'Send X-AUTH-TOKEN.' });
  assert.throws(() => createApp({ logSink: () => {}, firewalls: [{ name: 'api', customAuthenticators: [new WithStart(), new WithStart()] }] }), /Because you have multiple authenticators with a start\(\) method in firewall "api", you need to set its "entryPoint"/);
  assert.throws(() => createApp({ logSink: () => {}, firewalls: [{ name: 'api', entryPoint: 'login' as never }] }), /Firewall "api": entryPoint must be a function/);
});

test('an entry point that answers no response is the app\'s error, with Symfony\'s LogicException message', async () => {
  const { app, lines } = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, entryPoint: () => null as never }] });
  assert.equal((await send(app, '/api/me')).status, 500);
  assert.ok(records(lines).some((r) => r.message.includes('The entry point of firewall "api" must return a Response object ("null" returned).')), 'the expected log line');
});

test('a firewall\'s accessDeniedHandler answers a member denied access; null keeps the 403; an error in it is logged and answered as Symfony\'s wrapper', async () => {
  const handled = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [new ApiKeyAuthenticator()], accessDeniedHandler: { handle: (_r, error) => HttpResponse.json({ denied: error.message }, 403) } }] }).app;
  const reader = { headers: { 'x-auth-token': 'key-reader' } };
  const response = await send(handled, '/api/admin', reader);
  assert.equal(response.status, 403);
  assert.deepEqual(await response.json(), { denied: 'Access Denied.' });
  assert.equal((await send(handled, '/api/admin', { headers: { accept: 'application/json' } })).status, 401, 'anonymous clients get the entry point, not the handler');
  const passing = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [new ApiKeyAuthenticator()], accessDeniedHandler: () => null }] }).app;
  assert.equal((await send(passing, '/api/admin', { headers: { ...reader.headers, accept: 'application/json' } })).status, 403);
  const { app: failing, lines } = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [new ApiKeyAuthenticator()], accessDeniedHandler: () => { throw new Error('handler down'); } }] });
  assert.equal((await send(failing, '/api/admin', reader)).status, 500);
  assert.ok(records(lines).some((r) => r.level_name === 'ERROR' && r.message === 'An exception was thrown when handling an AccessDeniedException.'), 'the expected log line');
});

test('regression: an async supports() that rejected was never watched, and its unhandled rejection ended a Node process', async () => {
  let rejected = 0;
  const onRejection = () => void rejected++;
  process.on('unhandledRejection', onRejection);
  try {
    const asyncSupports: CustomAuthenticator = { name: 'AsyncSupports', supports: (async () => { throw new Error('lookup failed'); }) as never, authenticate: () => null };
    const { app, lines } = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [asyncSupports] }] });
    assert.equal((await send(app, '/api/me')).status, 500);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(rejected, 0);
    assert.ok(records(lines).some((r) => r.message.includes('AsyncSupports.supports() must answer synchronously')), 'the expected log line');
  } finally {
    process.off('unhandledRejection', onRejection);
  }
});

test('regression: supports() answering null (Symfony\'s "lazily") or a header value (PHP\'s ?bool makes it true) disabled the authenticator', async () => {
  for (const supports of [() => null, (r: KernelRequest) => r.headers.get('x-auth-token')]) {
    const { app } = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [{ supports: supports as CustomAuthenticator['supports'], authenticate: () => ({ memberId: 'lazy', roles: ['ROLE_API'] }) }] }] });
    assert.equal((await (await send(app, '/api/me', { headers: { 'x-auth-token': 'k' } })).json()).memberId, 'lazy');
  }
});

test('regression: a failed custom login left the remember-me cookie in use, so the remembered member was logged in and the cookie renewed', async () => {
  const refusing: CustomAuthenticator = { name: 'TokenHeader', supports: (r) => r.headers.has('x-auth-token'), authenticate: () => { throw new BadCredentialsException('unknown token'); } };
  const { app } = testApp({
    env: 'prod', debug: false, sessionStore: new MemorySessionStore(), environment: { APP_SECRET: SECRET }, firewalls: [{ name: 'main', customAuthenticators: [refusing] }],
    routes: [...routes, { name: 'remember', path: '/remember', methods: ['POST'], controller: (r) => { logIn(r, { memberId: 'ada', irmsToken: 't', rememberMe: true }); return HttpResponse.text('ok'); } }],
  });
  const remembered = setCookies(await send(app, '/remember', { method: 'POST' })).get('REMEMBERME')!.value;
  const cookie = `REMEMBERME=${encodeURIComponent(remembered)}`;
  assert.equal((await (await send(app, '/account', { headers: { cookie } })).json()).member, 'ada', 'the cookie works on its own');
  const failed = await send(app, '/account', { headers: { cookie, 'x-auth-token': 'stolen' } });
  assert.equal((await failed.json()).member, null, 'the failed login does not fall back to the remembered member');
  assert.equal(setCookies(failed).get('REMEMBERME')?.value, '', 'the failure clears the cookie');
});

test('regression: an authenticator answering a member past the size bounds got a 500 saying its fields had the wrong types', async () => {
  const { app, lines } = apiApp({ firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [{ name: 'Jwt', supports: () => true, authenticate: () => ({ memberId: 'm', irmsToken: 'x'.repeat(5000) }) }] }] });
  assert.equal((await send(app, '/api/me')).status, 500);
  assert.ok(records(lines).some((r) => r.message.includes('a string irmsToken of at most 4,096 characters')), 'the expected log line');
});

test('regression: a handler answering an upstream Response whose body was read became a bare 500 outside the kernel, without the error page or the profile', async () => {
  const upstream: CustomAuthenticator = {
    supports: () => true,
    authenticate: () => ({ memberId: 'm', roles: ['ROLE_API'] }),
    async onAuthenticationSuccess() {
      const answer = new Response('{"ok":true}');
      await answer.json();
      return answer;
    },
  };
  const app = createApp({ env: 'dev', logSink: () => {}, environment: { APP_SECRET: SECRET }, routes, firewalls: [{ name: 'api', pattern: '^/api', stateless: true, customAuthenticators: [upstream] }] });
  const response = await send(app, '/api/me');
  assert.equal(response.status, 500);
  assert.ok(response.headers.get('x-debug-token'), 'the kernel rendered it, profiled');
  assert.match(decodeURIComponent(response.headers.get('x-debug-exception') ?? ''), /A Fetch Response whose body was already read or is locked cannot be answered/);
});
