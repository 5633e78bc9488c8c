import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig, parseByteSize, type AppConfig } from '../../src/app/config.ts';
import { createApp, type AppOptions } from '../../src/app/create-app.ts';
import { HttpResponse } from '../../src/http/response.ts';
import type { KernelRequest } from '../../src/http/request.ts';
import { logIn } from '../../src/security/login.ts';

test('defaults follow CONTRACT §2', () => {
  const c = loadConfig({}, {});
  assert.equal(c.env, 'dev');
  assert.equal(c.debug, true);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 8000);
  assert.equal(c.logLevel, 'debug');
  assert.equal(c.logFormat, 'line');
  assert.equal(c.defaultLocale, 'en');
  assert.equal(c.profilerDsn, 'memory://?max=1000');
  assert.equal(c.bodyLimit, 1024 * 1024);
  assert.equal(c.disallowRobotsIndexing, true);
  assert.ok(c.secret.length >= 32, 'a random secret when APP_SECRET is unset');
});

test('prod turns debug off and raises the log level', () => {
  const c = loadConfig({}, { APP_ENV: 'prod' });
  assert.equal(c.debug, false);
  assert.equal(c.logLevel, 'warning');
});

test('environment variables are read', () => {
  const c = loadConfig({}, { APP_ENV: 'prod', APP_DEBUG: '1', PORT: '9001', LOG_FORMAT: 'json', TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1', BODY_LIMIT: '512kb' });
  assert.equal(c.debug, true);
  assert.equal(c.port, 9001);
  assert.equal(c.logFormat, 'json');
  assert.deepEqual(c.trustedProxies, ['10.0.0.0/8', '127.0.0.1']);
  assert.equal(c.bodyLimit, 512 * 1024);
});

test('invalid values stop the start with a message naming the variable', () => {
  assert.throws(() => loadConfig({}, { APP_ENV: 'staging' }), /APP_ENV/);
  assert.throws(() => loadConfig({}, { PORT: '99999' }), /PORT/);
  assert.throws(() => loadConfig({}, { LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
  assert.throws(() => loadConfig({}, { APP_DEBUG: 'maybe' }), /APP_DEBUG/);
  assert.throws(() => parseByteSize('BODY_LIMIT', 'lots'), /BODY_LIMIT/);
});

test('regression: a HOST that is no host name and a TRUSTED_HOSTS pattern that does not compile stopped the start with messages not naming the variable', () => {
  for (const host of ['not a host', 'a/b', 'http://x', '-lead.test', 'x'.repeat(254)]) {
    assert.throws(() => loadConfig({}, { HOST: host }), (e: unknown) => e instanceof Error && e.message === `HOST must be a host name or an IP address, got "${host}".`, host);
  }
  for (const host of ['127.0.0.1', '0.0.0.0', 'localhost', 'api.example.test', '::', '::1', '[::1]', 'fe80::1']) {
    assert.equal(loadConfig({}, { HOST: host }).host, host.replace(/^\[(.*)\]$/, '$1'), host);
  }
  assert.throws(() => loadConfig({}, { TRUSTED_HOSTS: '^example\\.com$,(' }), /^Error: TRUSTED_HOSTS must be comma-separated regular expressions; "\(" is not one \(/);
  assert.deepEqual(loadConfig({}, { TRUSTED_HOSTS: '^example\\.com$, ^api\\.' }).trustedHosts, ['^example\\.com$', '^api\\.']);
});

test('regression: a cookie name that is no HTTP token started the app and then made every session or login response a 500; a huge REMEMBER_ME_LIFETIME wrote "expires=Invalid Date"', () => {
  assert.throws(() => loadConfig({}, { SESSION_COOKIE_NAME: 'my sess' }), /^Error: SESSION_COOKIE_NAME must be a cookie name .*got "my sess"\.$/);
  assert.throws(() => loadConfig({}, { REMEMBER_ME_COOKIE_NAME: 'rm;x' }), /^Error: REMEMBER_ME_COOKIE_NAME must be a cookie name .*got "rm;x"\.$/);
  assert.throws(() => loadConfig({}, { REMEMBER_ME_LIFETIME: '10000000000000' }), /REMEMBER_ME_LIFETIME must be an integer between 1 and 315360000/);
  // A timer longer than 2^31 - 1 ms fires at once: a huge shutdown deadline would have cut requests off immediately.
  assert.throws(() => loadConfig({}, { SHUTDOWN_DEADLINE_MS: '3000000000' }), /SHUTDOWN_DEADLINE_MS must be an integer between 0 and 2147483647/);
  const config = loadConfig({}, { SESSION_COOKIE_NAME: 'app_sid', REMEMBER_ME_COOKIE_NAME: 'keep-me', REMEMBER_ME_LIFETIME: '315360000' });
  assert.deepEqual([config.sessionCookieName, config.rememberMeCookieName, config.rememberMeLifetimeSeconds], ['app_sid', 'keep-me', 315360000]);
});

test('options override the environment', () => {
  assert.equal(loadConfig({ debug: false }, { APP_DEBUG: '1' }).debug, false);
});

test('regression: LOG_LEVEL=constructor or __proto__ was accepted and turned every log record off, CRITICAL included', () => {
  for (const level of ['constructor', '__proto__', 'toString']) {
    assert.throws(() => loadConfig({}, { LOG_LEVEL: level }), /^Error: LOG_LEVEL must be one of /, level);
  }
  assert.equal(loadConfig({}, { LOG_LEVEL: 'WARNING', LOG_FORMAT: 'JSON' }).logFormat, 'json', 'both read case-insensitively');
});

test('regression: createApp options were not checked: debug "false" turned debug mode on in prod, bodyLimit "1mb" removed the limit, a misspelt trustedHosts was ignored', () => {
  const refused: [Record<string, unknown>, RegExp][] = [
    [{ debug: 'false' }, /^Error: createApp option "debug" must be true or false, got "false" \(a string\)\.$/],
    [{ debug: 0 }, /option "debug" must be true or false, got 0/],
    [{ bodyLimit: '1mb' }, /option "bodyLimit" must be an integer between 0 and \d+, got "1mb"/],
    [{ bodyLimit: Number.NaN }, /option "bodyLimit" must be an integer/],
    [{ trustedHost: ['^a$'] }, /^Error: Unknown createApp option "trustedHost" \(did you mean "trustedHosts"\?\)\.$/],
    [{ trustedHosts: '^a$' }, /option "trustedHosts" must be an array of strings, got "\^a\$"/],
    [{ sessionCookieName: 'a b;c' }, /sessionCookieName must be a cookie name/],
    [{ profilerDsn: 5 }, /option "profilerDsn" must be a string, got 5/],
    [{ env: 'staging' }, /option "env" must be one of dev, prod, test/],
    [{ shutdownDeadlineMs: 3_000_000_000 }, /option "shutdownDeadlineMs" must be an integer between 0 and 2147483647/],
  ];
  for (const [options, message] of refused) assert.throws(() => loadConfig(options as Partial<AppConfig>, {}), message, JSON.stringify(options));
  // An option given as undefined is an option not given: the default (or the environment) stays.
  const config = loadConfig({ env: 'prod', bodyLimit: undefined, disallowRobotsIndexing: undefined, sessionCookieName: undefined }, {});
  assert.deepEqual([config.debug, config.bodyLimit, config.disallowRobotsIndexing, config.sessionCookieName], [false, 1024 * 1024, true, 'IRMSSESSID']);
  assert.equal(loadConfig({ debug: true, bodyLimit: 10 }, {}).bodyLimit, 10);
});

/** createApp as a JavaScript caller uses it: anything may be passed (the messages are what it sees). */
const build = (options: Record<string, unknown>) => () => createApp({ env: 'prod', environment: {}, logSink: () => {}, ...options } as AppOptions);

test('regression: createApp option values were refused with the environment variable\'s message (TRUSTED_HOSTS, HOST, PROFILER_DSN) or one naming neither ("Invalid trusted proxy")', () => {
  assert.throws(build({ trustedHosts: ['^ok$', '(('] }), { message: /^createApp option "trustedHosts" must be an array of regular expressions; "\(\(" is not one \(Invalid regular expression: .*\)\.$/ });
  assert.throws(build({ host: 'a b' }), { message: 'createApp option "host" must be a host name or an IP address, got "a b".' });
  // Checked in prod too, where the profiler is off: turning debug on later must not be what finds it.
  assert.throws(build({ profilerDsn: 'redis://x' }), { message: 'createApp option "profilerDsn" must be "memory://?max=N" or "file:<dir>?max=N" (unknown scheme), got "redis://x".' });
  assert.throws(build({ trustedProxies: ['10.0.0.0/8', 'not-an-ip'] }), { message: 'createApp option "trustedProxies" must be an array of IP addresses or CIDR ranges (or "REMOTE_ADDR"); "not-an-ip" is not one.' });
  assert.throws(build({ environment: { TRUSTED_PROXIES: '10.0.0.0/8, 10.0.0.0/' } }), { message: 'TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (or REMOTE_ADDR); "10.0.0.0/" is not one.' });
  assert.throws(build({ environment: { HOST: 'a b' } }), { message: 'HOST must be a host name or an IP address, got "a b".' });
  assert.throws(build({ environment: { TRUSTED_HOSTS: '((' } }), { message: /^TRUSTED_HOSTS must be comma-separated regular expressions; "\(\(" is not one / });
  const app = createApp({ env: 'prod', environment: {}, logSink: () => {}, trustedProxies: ['REMOTE_ADDR', '10.0.0.0/8', '::1'], trustedHosts: ['^a\\.test$'], profilerDsn: 'file:/tmp/irms-profiles?max=10' });
  assert.deepEqual([app.config.trustedProxies, app.config.profilerDsn], [['REMOTE_ADDR', '10.0.0.0/8', '::1'], 'file:/tmp/irms-profiles?max=10']);
});

test('regression: a list option with a wrong entry said only "got an array" (logExcludedHttpCodes: ["404"])', () => {
  assert.throws(build({ logExcludedHttpCodes: [405, '404'] }), { message: 'createApp option "logExcludedHttpCodes" must be an array of HTTP status codes (integers between 100 and 599), got "404" (a string) at index 1.' });
  assert.throws(build({ enabledLocales: ['en', 5] }), { message: 'createApp option "enabledLocales" must be an array of strings, got 5 at index 1.' });
});

test('regression: an unknown createApp option was matched only against the AppConfig names: no hint for route, logsink, APP_SECRET, rememberMeLifetime…', () => {
  const hints: [string, string][] = [
    ['route', 'routes'],
    ['listener', 'listeners'],
    ['logsink', 'logSink'],
    ['firewall', 'firewalls'],
    ['refreshMembers', 'refreshMember'],
    ['renderTemplates', 'renderTemplate'],
    ['enviroment', 'environment'],
    ['APP_SECRET', 'secret'],
    ['appSecret', 'secret'],
    ['APP_ENV', 'env'],
    ['APP_DEBUG', 'debug'],
    ['REMEMBER_ME_LIFETIME', 'rememberMeLifetimeSeconds'],
    ['rememberMeLifetime', 'rememberMeLifetimeSeconds'],
    ['BODY_LIMIT', 'bodyLimit'],
    ['TRUSTED_PROXIES', 'trustedProxies'],
    ['hostname', 'host'],
    ['bodylimit', 'bodyLimit'],
  ];
  for (const [given, meant] of hints) assert.throws(build({ [given]: 1 }), { message: `Unknown createApp option "${given}" (did you mean "${meant}"?).` }, given);
  assert.throws(build({ colour: 'blue' }), { message: 'Unknown createApp option "colour".' });
});

test('regression: there was no TRUSTED_HEADERS, so every forwarded header of a trusted proxy was believed; it is read and checked as strictly as the other variables', () => {
  assert.deepEqual(loadConfig({}, {}).trustedHeaders, ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port'], 'CONTRACT §2: all of them');
  assert.deepEqual(loadConfig({}, { TRUSTED_HEADERS: 'X-Forwarded-For, x-forwarded-port,x-forwarded-proto' }).trustedHeaders, ['x-forwarded-for', 'x-forwarded-port', 'x-forwarded-proto']);
  assert.throws(() => loadConfig({}, { TRUSTED_HEADERS: 'x-forwarded-for,x-real-ip' }), { message: 'TRUSTED_HEADERS must be comma-separated names among forwarded, x-forwarded-for, x-forwarded-host, x-forwarded-proto, x-forwarded-port, got "x-forwarded-for,x-real-ip".' });
  assert.deepEqual(loadConfig({ trustedHeaders: ['x-forwarded-for'] }, { TRUSTED_HEADERS: 'forwarded' }).trustedHeaders, ['x-forwarded-for'], 'the option wins');
  assert.deepEqual(loadConfig({ trustedHeaders: [] }, {}).trustedHeaders, [], 'an empty array trusts no forwarded header');
  assert.throws(() => loadConfig({ trustedHeaders: 'x-forwarded-for' as never }, {}), /createApp option "trustedHeaders" must be an array of names among forwarded, .*got "x-forwarded-for" \(a string\)\./);
  assert.throws(() => loadConfig({ trustedHeaders: ['X-Forwarded-For'] as never }, {}), /got "X-Forwarded-For" \(a string\) at index 0\./);
  assert.throws(() => createApp({ trustedHeader: [] } as AppOptions), /Unknown createApp option "trustedHeader" \(did you mean "trustedHeaders"\?\)/);
});

test('regression: the session store\'s total data bound (64 MiB) could not be configured; SESSION_MAX_BYTES and sessionMaxBytes set it, and a guest session past it is evicted', async () => {
  const routes = [
    {
      name: 'visit',
      path: '/visit',
      controller: (r: KernelRequest) => {
        const session = r.getSession();
        const visits = ((session.get('visits') as number | undefined) ?? 0) + 1;
        session.set('visits', visits);
        session.set('padding', 'x'.repeat(400)); // about 800 bytes of session data
        return HttpResponse.json({ visits });
      },
    },
  ];
  const visit = async (app: ReturnType<typeof createApp>, cookie?: string) => {
    const r = await app.fetch(new Request('http://localhost/visit', { headers: cookie ? { cookie } : {} }));
    const setCookie = r.headers.get('set-cookie');
    return { visits: ((await r.json()) as { visits: number }).visits, cookie: setCookie ? setCookie.split(';')[0]! : cookie };
  };
  /** The first client's second visit after two other clients started sessions. */
  const secondVisit = async (app: ReturnType<typeof createApp>) => {
    const first = await visit(app);
    await visit(app);
    await visit(app);
    return (await visit(app, first.cookie)).visits;
  };
  assert.equal(await secondVisit(createApp({ env: 'prod', environment: {}, logSink: () => {}, routes })), 2, 'the default bound keeps all three');
  assert.equal(await secondVisit(createApp({ env: 'prod', environment: { SESSION_MAX_BYTES: '2kb' }, logSink: () => {}, routes })), 1, 'past 2 KiB the oldest guest went');
  assert.equal(await secondVisit(createApp({ env: 'prod', environment: {}, sessionMaxBytes: 2048, logSink: () => {}, routes })), 1);
  assert.equal(createApp({ env: 'prod', environment: { SESSION_MAX_BYTES: '512kb' }, logSink: () => {} }).config.sessionMaxBytes, 512 * 1024);
  assert.throws(build({ environment: { SESSION_MAX_BYTES: '100' } }), { message: 'SESSION_MAX_BYTES must be at least 1024 bytes (1kb), got "100".' });
  assert.throws(build({ environment: { SESSION_MAX_BYTES: 'lots' } }), { message: 'SESSION_MAX_BYTES must be a size such as 1mb, 512kb or 1048576, got "lots".' });
  assert.throws(build({ sessionMaxBytes: 10 }), /sessionMaxBytes/);
});

test('SESSION_MAX_PER_MEMBER and sessionMaxPerMember bound one member\'s sessions in the default store: its least recently used login goes, other members stay', async () => {
  const routes = [
    { name: 'login', path: '/login/:member', controller: (r: KernelRequest) => {
      logIn(r, { memberId: String(r.attributes.get('member')), irmsToken: `token-${String(r.attributes.get('member'))}` });
      return new HttpResponse('in');
    } },
    { name: 'me', path: '/me', controller: (r: KernelRequest) => new HttpResponse(String(r.attributes.get('member_id') ?? '')) },
  ];
  const sessionOf = async (app: ReturnType<typeof createApp>, member: string) => {
    const line = (await app.fetch(new Request(`http://localhost/login/${member}`))).headers.get('set-cookie')!;
    return line.split(';')[0]!;
  };
  const whoIs = async (app: ReturnType<typeof createApp>, cookie: string) => (await app.fetch(new Request('http://localhost/me', { headers: { cookie } }))).text();
  const app = createApp({ env: 'prod', environment: { SESSION_MAX_PER_MEMBER: '2', APP_SECRET: 's' }, logSink: () => {}, routes });
  assert.equal(app.config.sessionMaxPerMember, 2);
  const other = await sessionOf(app, 'ann');
  const first = await sessionOf(app, 'bob');
  const second = await sessionOf(app, 'bob');
  const third = await sessionOf(app, 'bob');
  assert.deepEqual(await Promise.all([whoIs(app, first), whoIs(app, second), whoIs(app, third), whoIs(app, other)]), ['', 'bob', 'bob', 'ann']);
  assert.equal(createApp({ env: 'prod', environment: {}, logSink: () => {} }).config.sessionMaxPerMember, 32);
  assert.equal(createApp({ env: 'prod', environment: {}, sessionMaxPerMember: 5, logSink: () => {} }).config.sessionMaxPerMember, 5);
  assert.throws(build({ environment: { SESSION_MAX_PER_MEMBER: '0' } }), { message: `SESSION_MAX_PER_MEMBER must be an integer between 1 and ${Number.MAX_SAFE_INTEGER}, got "0".` });
  assert.throws(build({ sessionMaxPerMember: 0 }), /sessionMaxPerMember/);
});

test('regression: a wrong PROFILER_DSN in the environment started a production app silently (the option was refused)', () => {
  for (const env of [{ APP_ENV: 'prod' }, { APP_ENV: 'prod', APP_DEBUG: '0' }, {}]) {
    assert.throws(() => loadConfig({}, { ...env, PROFILER_DSN: 'redis://cache:6379' }), { message: 'PROFILER_DSN must be "memory://?max=N" or "file:<dir>?max=N" (unknown scheme), got "redis://cache:6379".' });
    assert.throws(() => loadConfig({}, { ...env, PROFILER_DSN: 'memory://?max=0' }), /^Error: PROFILER_DSN must be .*max must be an integer between 1 and 1000000/);
  }
  assert.equal(loadConfig({}, { APP_ENV: 'prod', PROFILER_DSN: 'file:/tmp/p?max=5' }).profilerDsn, 'file:/tmp/p?max=5');
});
