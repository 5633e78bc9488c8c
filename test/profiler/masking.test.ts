/**
 * Secrets are masked before a profile is stored (CONTRACT §6.2): each kind separately, then a sweep of
 * the stored JSON, the JSON endpoint and every panel for the canaries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { maskContent, maskHeader, maskQuerySecrets, sanitize, scrubText } from '../../src/debug/profiler/mask.ts';
import { PANELS } from '../../src/debug/profiler/views/layout.ts';
import { HttpResponse as Res } from '../../src/index.ts';
import { fixtureRoutes, get, ORIGIN, profiledApp, profileOf } from './support.ts';

const CANARIES = [
  'CANARY_BEARER',
  'CANARY_BASIC',
  'CANARY_PROXY',
  'CANARY_COOKIE',
  'CANARY_SET_COOKIE_VALUE',
  'CANARY_PASSWORD',
  'CANARY_JSON_TOKEN',
  'CANARY_NESTED_SECRET',
  'CANARY_QUERY_TOKEN',
  'CANARY_REFERER',
  'CANARY_APIKEY',
  'CANARY_SESSION_CSRF',
  'CANARYTOKEN',
  'CANARY_FORM_PASSWORD',
  'sk_live_CANARY',
];

function assertNoCanary(text: string, where: string): void {
  for (const canary of CANARIES) assert.ok(!text.includes(canary), `${where} leaks ${canary}`);
}

describe('masking', () => {
  test('unit: headers, text, nested fields, bodies', () => {
    assert.equal(maskHeader('Authorization', 'Bearer CANARY_BEARER'), 'Bearer ***');
    assert.equal(maskHeader('authorization', 'CANARY_BEARER'), '***');
    assert.equal(maskHeader('Cookie', 'a=CANARY_COOKIE; IRMSSESSID=CANARY_COOKIE'), 'a=***; IRMSSESSID=***');
    assert.equal(maskHeader('set-cookie', 'remember=CANARY_COOKIE; path=/; httponly'), 'remember=***; path=/; httponly');
    assert.equal(maskHeader('x-api-key', 'CANARY_APIKEY'), '***');
    assert.equal(maskHeader('x-debug-token', 'abc123'), 'abc123');
    assert.equal(maskHeader('referer', 'https://x.test/cb?token=CANARY_REFERER&page=2'), 'https://x.test/cb?token=***&page=2');
    assert.equal(scrubText('sent Authorization: Bearer CANARY_BEARER ok'), 'sent Authorization: Bearer *** ok');
    assert.deepEqual(sanitize({ user: { password: 'CANARY_PASSWORD', name: 'ada' }, list: [{ client_secret: 'CANARY_NESTED_SECRET' }] }), {
      user: { password: '***', name: 'ada' },
      list: [{ client_secret: '***' }],
    });
    const json = maskContent('{"username":"ada","password":"CANARY_PASSWORD","deep":{"access_token":"CANARY_JSON_TOKEN"}}', 'application/json', 10_000);
    assertNoCanary(json, 'json body');
    assert.ok(json.includes('"username": "ada"'));
    assertNoCanary(maskContent('username=ada&password=CANARY_FORM_PASSWORD&_csrf_token=CANARY_JSON_TOKEN', 'application/x-www-form-urlencoded', 10_000), 'form body');
    const multipart = maskContent('--b\r\nContent-Disposition: form-data; name="password"\r\n\r\nCANARY_PASSWORD\r\n--b--\r\n', 'multipart/form-data; boundary=b', 10_000);
    assertNoCanary(multipart, 'multipart body');
    assertNoCanary(maskContent('{"password": "CANARY_PASSWORD", broken', 'text/plain', 10_000), 'broken json');
  });

  test('a stored profile holds no secret of any kind', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const login = await app.fetch(
      new Request(`${ORIGIN}/login?token=CANARY_QUERY_TOKEN&page=1`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer CANARY_BEARER',
          'proxy-authorization': 'Basic CANARY_PROXY',
          cookie: 'theme=CANARY_COOKIE; other=CANARY_COOKIE',
          referer: `${ORIGIN}/form?reset_token=CANARY_REFERER`,
          'x-api-key': 'CANARY_APIKEY',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ username: 'ada', password: 'CANARY_PASSWORD', profile: { api_token: 'CANARY_JSON_TOKEN', nested: { secret: 'CANARY_NESTED_SECRET' } } }),
      }),
    );
    assert.equal(login.status, 200);
    const p = await profileOf(app, login);
    const stored = JSON.stringify(p);
    assertNoCanary(stored, 'stored profile');

    // Each kind, where it lands.
    assert.equal(p.request.headers.authorization, 'Bearer ***');
    assert.equal(p.request.headers['proxy-authorization'], 'Basic ***');
    assert.equal(p.request.headers.cookie, 'theme=***; other=***');
    assert.deepEqual(p.request.cookies.map((c) => c.value), ['***', '***']);
    assert.equal(p.request.headers['x-api-key'], '***');
    assert.equal(p.request.query.token, '***');
    assert.ok(p.url.includes('token=***'));
    assert.equal((p.request.body as { password: string }).password, '***');
    assert.ok(p.request.content?.includes('"password": "***"'));
    const setCookies = p.response.cookies.map((c) => `${c.name}=${c.value}`);
    assert.ok(setCookies.includes('remember=***'), JSON.stringify(setCookies));
    assert.ok(p.response.headers['set-cookie']!.split('\n').every((line) => /^[^=]+=\*\*\*(;|$)/.test(line)), p.response.headers['set-cookie']);
    assert.ok(p.session, 'session recorded');
    assert.ok(!p.session!.id || /^.{0,4}…$/.test(p.session!.id), `session id masked: ${p.session!.id}`);
    assert.equal(p.session!.attributes.csrf_token, '***');
    assert.deepEqual(p.session!.attributes.cart, ['apple']);

    // The session id itself (from the Set-Cookie the app sent) never appears.
    const sessionCookie = login.headers.getSetCookie().find((c) => c.startsWith('IRMSSESSID='));
    if (sessionCookie) {
      const sid = sessionCookie.slice('IRMSSESSID='.length).split(';')[0]!;
      assert.ok(sid.length > 8 && !stored.includes(sid), 'session id not stored');
    }

    // Log contexts and the member token.
    const logs = await get(app, '/logs');
    const lp = await profileOf(app, logs);
    assert.equal((lp.logs.find((l) => l.channel === 'payment')!.context as { api_key: string }).api_key, '***');
    const member = await get(app, '/member/42');
    const mp = await profileOf(app, member);
    assert.equal(mp.security.memberId, '42');
    assert.equal(mp.security.token, 'CANA…');
    assertNoCanary(JSON.stringify(lp) + JSON.stringify(mp), 'logs/member profiles');

    // Nothing leaks through the JSON endpoint or any panel either.
    for (const token of [p.token, lp.token, mp.token]) {
      assertNoCanary(await (await get(app, `/_profiler/${token}`, { headers: { accept: 'application/json' } })).text(), `JSON of ${token}`);
      for (const panel of PANELS) assertNoCanary(await (await get(app, `/_profiler/${token}?panel=${panel}`)).text(), `${panel} panel of ${token}`);
      assertNoCanary(await (await get(app, `/_wdt/${token}`)).text(), `toolbar of ${token}`);
    }
  });

  test('an environment canary never reaches a profile or a page', async () => {
    process.env.IRMS_CANARY_SECRET = 'CANARY_ENV_VALUE';
    try {
      const app = profiledApp({ routes: fixtureRoutes() });
      const r = await get(app, '/boom');
      const p = await profileOf(app, r);
      assert.ok(!JSON.stringify(p).includes('CANARY_ENV_VALUE'));
      for (const panel of PANELS) assert.ok(!(await (await get(app, `/_profiler/${p.token}?panel=${panel}`)).text()).includes('CANARY_ENV_VALUE'));
    } finally {
      delete process.env.IRMS_CANARY_SECRET;
    }
  });
});

describe('regressions from the fuzzer', () => {
  test('regression: a secret query value was masked only up to a quote, `#` or `;`, the rest of it logged and stored', () => {
    for (const [url, masked] of [
      ["/?token=abc'HUNTER2", '/?token=***'],
      ['/x?password=p#HUNTER3', '/x?password=***'],
      ['/x?api_key=a;SECRET&page=2', '/x?api_key=***&page=2'],
      ['/x?q=1&token=ab"c<d>&page=2', '/x?q=1&token=***&page=2'],
      ['/x?q=a;token=HIDDEN', '/x?q=a;token=***'],
    ]) {
      assert.equal(maskQuerySecrets(url!), masked, url);
    }
    // A Referer is one URL: stored masked the same way, whatever follows the value.
    assert.equal(maskHeader('referer', 'http://x.test/?token=***"SECRET&page=2'), 'http://x.test/?token=***&page=2');
    // In free text, where a URL ends cannot be known: the value stops at whitespace and quotes.
    assert.equal(scrubText('failed for "https://x.test/?token=SECRET" (retry)'), 'failed for "https://x.test/?token=***" (retry)');
  });

  test('regression: the password of a Referer such as http://bob:HUNTER4@intranet/ was logged and stored', () => {
    assert.equal(maskQuerySecrets('http://bob:HUNTER4@intranet/?page=2'), 'http://bob:***@intranet/?page=2');
    assert.equal(maskHeader('referer', 'https://bob:HUNTER4@intranet/'), 'https://bob:***@intranet/');
    assert.equal(scrubText('No route found for "GET http://x/" (from "http://bob:HUNTER4@intranet/")'), 'No route found for "GET http://x/" (from "http://bob:***@intranet/")');
    // A user without a password, and `://` without credentials, stay as they are.
    assert.equal(maskQuerySecrets('http://bob@intranet/a:b@c'), 'http://bob@intranet/a:b@c');
  });

  test('regression: a cookie with no name (a bare value, as browsers send it) was stored unmasked', () => {
    assert.equal(maskHeader('cookie', 'NAMELESSVAL; a=b'), '***; a=***');
    assert.equal(maskHeader('cookie', 'a=b;; NAMELESS'), 'a=***; ***');
    // Two Cookie headers joined with a comma: what precedes the comma is no cookie name, and may be a value.
    assert.equal(maskHeader('cookie', 'SECRETVAL, b=c; =d'), '***; =***');
  });

  test('regression: a request cookie "name" that is no HTTP token (`SECRETVAL, b=c`) was stored as it came', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const res = await get(app, '/html', { headers: { cookie: 'SECRETVAL, b=c; theme=dark' } });
    const p = await profileOf(app, res);
    assert.deepEqual(p.request.cookies, [{ name: '***', value: '***' }, { name: 'theme', value: '***' }]);
    assert.ok(!JSON.stringify(p).includes('SECRETVAL'));
  });

  test('regression: multipart fields named password or api_key without double quotes were stored unmasked', () => {
    const body = "--B\r\nContent-Disposition: form-data; name=password\r\n\r\nHUNTER2\r\n--B\r\nContent-Disposition: form-data; name='api_key'\r\n\r\nKEYVAL\r\n--B\r\nContent-Disposition: form-data; name=title\r\n\r\nhello\r\n--B--\r\n";
    const masked = maskContent(body, 'multipart/form-data; boundary=B', 10_000);
    assert.ok(!masked.includes('HUNTER2') && !masked.includes('KEYVAL'), masked);
    assert.ok(masked.includes('name=title\r\n\r\nhello'), masked);
  });

  test('the scans stay linear on hostile text (no pattern backtracks over long runs)', () => {
    const hostile = [`?token=${'"'.repeat(200_000)}x`, `http://${'a:'.repeat(100_000)}`, `${'://a'.repeat(50_000)}`, `${';token='.repeat(30_000)}`];
    for (const text of hostile) {
      // Completing at all is the check: a quadratic scan of these would take minutes.
      assert.equal(typeof scrubText(text), 'string');
      assert.equal(typeof maskQuerySecrets(text), 'string');
    }
  });
});

describe('secrets that reached profiles and logs unmasked', () => {
  test('regression: the stored X-Debug-Exception header kept the exception message\'s secrets (percent-encoded, out of the patterns\' sight)', async () => {
    const message = 'POST https://api.pay.test/v1/charges?api_key=CANARY_APIKEY failed (Authorization: Bearer CANARY_BEARER)';
    const app = profiledApp({ routes: [{ name: 'pay', path: '/pay', controller: () => { throw new Error(message); } }] });
    const res = await get(app, '/pay');
    assert.equal(res.status, 500);
    // The live debug response keeps Symfony's header: the message as thrown, rawurlencoded.
    assert.equal(decodeURIComponent(res.headers.get('x-debug-exception')!), message);
    const p = await profileOf(app, res);
    assert.equal(decodeURIComponent(p.response.headers['x-debug-exception']!), 'POST https://api.pay.test/v1/charges?api_key=*** failed (Authorization: Bearer ***)');
    assertNoCanary(JSON.stringify(p), 'stored profile');
    assertNoCanary(await (await get(app, `/_profiler/${p.token}?panel=request`)).text(), 'request panel');
    // A message with nothing to hide is stored with the bytes it was sent with.
    assert.equal(maskHeader('x-debug-exception', 'No%20route%20found%20for%20%22GET%20%2Fa%3Fpage%3D2%22'), 'No%20route%20found%20for%20%22GET%20%2Fa%3Fpage%3D2%22');
  });

  test('regression: secret parameters after # (an implicit grant\'s access_token, an id_token) were stored and logged', async () => {
    assert.equal(scrubText('Redirecting to https://app.test/cb#access_token=CANARY_A&token_type=bearer&expires_in=3600'), 'Redirecting to https://app.test/cb#access_token=***&token_type=***&expires_in=3600');
    assert.equal(maskQuerySecrets('https://app.test/cb#id_token=CANARY_I&state=1'), 'https://app.test/cb#id_token=***&state=1');
    assert.equal(maskQuerySecrets('https://app.test/cb?x=1#id_token=CANARY_I'), 'https://app.test/cb?x=1#id_token=***');
    // A fragment without a secret, and `#` that opens no key, stay as they are.
    assert.equal(maskQuerySecrets('https://app.test/docs#install'), 'https://app.test/docs#install');
    assert.equal(scrubText('issue #42=closed, see #setup'), 'issue #42=closed, see #setup');

    const target = 'https://client.test/cb#access_token=CANARY_QUERY_TOKEN&token_type=bearer&expires_in=3600';
    const app = profiledApp({
      logFormat: 'json',
      routes: [{ name: 'authorize', path: '/authorize', controller: (r) => { r.logger.info('app', 'Redirecting to {target}', { target }); return new Response(null, { status: 302, headers: { location: target } }); } }],
    });
    const res = await get(app, '/authorize', { headers: { referer: 'https://client.test/app#id_token=CANARY_REFERER&state=1' } });
    assert.equal(res.headers.get('location'), target, 'the response itself is the application\'s');
    const p = await profileOf(app, res);
    assert.equal(p.response.headers.location, 'https://client.test/cb#access_token=***&token_type=***&expires_in=3600');
    assert.equal(p.request.headers.referer, 'https://client.test/app#id_token=***&state=1');
    assertNoCanary(JSON.stringify(p), 'stored profile');
    for (const panel of ['request', 'logs']) assertNoCanary(await (await get(app, `/_profiler/${p.token}?panel=${panel}`)).text(), `${panel} panel`);
    const logged = app.logs.find((l) => l.includes('Redirecting'))!;
    assertNoCanary(logged, 'log line');
    assert.match(logged, /"message":"Redirecting to https:\/\/client\.test\/cb#access_token=\*\*\*&/);
  });

  test('regression: gateway API-key and identity headers, lower-case auth schemes and an Azure SAS signature were stored and logged in clear', async () => {
    const headers = {
      'Ocp-Apim-Subscription-Key': 'CANARY_APIKEY',
      'X-Functions-Key': 'CANARY_APIKEY',
      'X-Auth-Key': 'CANARY_APIKEY',
      'Cf-Access-Jwt-Assertion': 'CANARY_BEARER',
      'X-Goog-Iap-Jwt-Assertion': 'CANARY_BEARER',
      'X-Amzn-Oidc-Data': 'CANARY_BEARER',
    };
    for (const [name, value] of Object.entries(headers)) assert.equal(maskHeader(name, value), '***', name);
    // Auth schemes are case-insensitive (RFC 7235), and some write a colon after them.
    assert.equal(scrubText('rejected header "authorization: bearer CANARY_BEARER"'), 'rejected header "authorization: bearer ***"');
    assert.equal(scrubText('BASIC CANARY_BASIC and Bearer: CANARY_BEARER'), 'BASIC *** and Bearer: ***');
    // A lower-case scheme word followed by a lower-case word is English, not a credential (which may follow it).
    assert.equal(scrubText('Read existing security token from the session.'), 'Read existing security token from the session.');
    assert.equal(scrubText('Authenticated member "42" with a bearer token.'), 'Authenticated member "42" with a bearer token.');
    assert.equal(scrubText('sent bearer token eyJhbGciOiJIUzI1NiJ9.CANARY_BEARER'), 'sent bearer token ***');
    // `sig` is a secret as a whole name (Azure SAS); a bare `key` is not (README: it would hide every harmless `key=`).
    assert.equal(maskQuerySecrets('https://acct.blob.core.windows.net/c/b.pdf?sv=2022-11-02&sr=b&sig=CANARY_QUERY_TOKEN'), 'https://acct.blob.core.windows.net/c/b.pdf?sv=2022-11-02&sr=b&sig=***');
    assert.equal(maskQuerySecrets('/search?signal=1&design=2&key=sort'), '/search?signal=1&design=2&key=sort');

    const app = profiledApp({
      logFormat: 'json',
      routes: [
        {
          name: 'l',
          path: '/l',
          controller: (r) => {
            r.logger.warning('app', 'upstream said {detail}', { detail: 'rejected header "authorization: bearer CANARY_BEARER"', blob: 'https://acct.blob.core.windows.net/c/b.pdf?sv=2022-11-02&sig=CANARY_QUERY_TOKEN' });
            return Res.html('<html><body>ok</body></html>');
          },
        },
      ],
    });
    const res = await get(app, '/l', { headers });
    const p = await profileOf(app, res);
    for (const name of Object.keys(headers)) assert.equal(p.request.headers[name.toLowerCase()], '***', name);
    assertNoCanary(JSON.stringify(p), 'stored profile');
    assertNoCanary(await (await get(app, `/_profiler/${p.token}?panel=request`)).text(), 'request panel');
    assertNoCanary(app.logs.join('\n'), 'log stream');
  });
});

describe('credentials inside percent-encoded values', () => {
  test('regression: a URL password or Bearer credential inside an encoded query or form value was masked in the parameters table but stored in the URL, the Referer and the raw body', async () => {
    const app = profiledApp({
      routes: [
        {
          name: 'setup',
          path: '/setup',
          methods: ['GET', 'POST'],
          controller: async (r) => {
            await r.content();
            return Res.html('<html><body>ok</body></html>');
          },
        },
      ],
    });
    const query = 'dsn=mysql%3A%2F%2Fadmin%3ACANARY_PASSWORD%40db&auth_header=x&h=Bearer%20CANARY_BEARER&next=%2Fcb%3Ftoken%3DCANARY_QUERY_TOKEN';
    const res = await get(app, `/setup?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', referer: `${ORIGIN}/install?dsn=mysql%3A%2F%2Fadmin%3ACANARY_REFERER%40db` },
      body: 'dsn=mysql%3A%2F%2Fadmin%3ACANARY_FORM_PASSWORD%40db&note=Bearer+CANARY_BEARER&page=2',
    });
    const p = await profileOf(app, res);
    // The parameters tables already showed these decoded and masked; the encoded copies now agree.
    assert.deepEqual(p.request.query.dsn, 'mysql://admin:***@db');
    // (getUri sorts the parameters, as Symfony's Request::normalizeQueryString.)
    assert.equal(p.url, `${ORIGIN}/setup?auth_header=x&dsn=mysql%3A%2F%2Fadmin%3A***%40db&h=Bearer%20***&next=%2Fcb%3Ftoken%3D***`);
    assert.equal(p.request.headers.referer, `${ORIGIN}/install?dsn=mysql%3A%2F%2Fadmin%3A***%40db`);
    assert.equal(p.request.content, 'dsn=mysql%3A%2F%2Fadmin%3A***%40db&note=Bearer%20***&page=2');
    assertNoCanary(JSON.stringify(p), 'stored profile');
    for (const panel of ['request', 'logs']) assertNoCanary(await (await get(app, `/_profiler/${p.token}?panel=${panel}`)).text(), `${panel} panel`);
    assertNoCanary(await (await get(app, `/_profiler/${p.token}/search/results?limit=10`)).text(), 'search results');
    // Encoded values with nothing to hide keep their bytes.
    const plain = await get(app, '/setup?q=a%20b%2Bc&path=%2Fdocs%2Fintro');
    assert.equal((await profileOf(app, plain)).url, `${ORIGIN}/setup?path=%2Fdocs%2Fintro&q=a%20b%2Bc`);
  });
});
