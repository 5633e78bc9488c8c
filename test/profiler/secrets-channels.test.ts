/**
 * One secret sent through one channel at a time (a path parameter, a quoted log value, a quoted
 * credential in an exception message, a JSON document inside a message), then looked for in everything
 * kept or shown: the stored profile, the profiler's panels and exception page, and the log stream.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PANELS } from '../../src/debug/profiler/views/layout.ts';
import { HttpResponse as Res } from '../../src/index.ts';
import { get, ORIGIN, profiledApp, profileOf, type TestApp } from './support.ts';

// Far from the controllers: the exception page's source excerpts show the lines around a throw.
const JWT = 'eyJhbGciOiJIUzI1NiJ9.CANARY_JWT';
const upstream = '{"access_token":"CANARY_ACCESS","token_type":"Bearer","refresh_token":"CANARY_REFRESH","expires_in":3600}';

/** Every place a profiled request's data is kept or shown, concatenated. */
async function everythingKept(app: TestApp, response: Response): Promise<string> {
  const profile = await profileOf(app, response);
  const parts = [JSON.stringify(profile), app.logs.join('\n')];
  parts.push(await (await get(app, `/_profiler/${profile.token}`, { headers: { accept: 'application/json' } })).text());
  for (const panel of PANELS) parts.push(await (await get(app, `/_profiler/${profile.token}?panel=${panel}`)).text());
  parts.push(await (await get(app, `/_profiler/${profile.token}/exception`)).text());
  parts.push(await (await get(app, `/_wdt/${profile.token}`)).text());
  return parts.join('\n');
}

describe('secrets through each channel', () => {
  test('regression: a ;jsessionid= path parameter was masked up to the next `&`, so the stored URL and logged URLs lost the `?` and the first query parameter', async () => {
    const app = profiledApp({ logFormat: 'json', routes: [{ name: 'cart', path: '/cart', controller: () => Res.html('<html><body>cart</body></html>') }] });
    const response = await get(app, '/cart;jsessionid=CANARY_JSESSIONID?page=2&q=shoes');
    assert.equal(response.status, 404);
    const profile = await profileOf(app, response);
    assert.equal(profile.url, `${ORIGIN}/cart;jsessionid=***?page=2&q=shoes`);
    const notFound = app.logs.find((line) => line.includes('No route found'))!;
    assert.ok(notFound.includes('/cart;jsessionid=***?page=2&q=shoes'), notFound);
    assert.ok(notFound.includes('"url":"/cart;jsessionid=***?page=2&q=shoes"'), notFound);
    assert.ok(!(await everythingKept(app, response)).includes('CANARY_JSESSIONID'));
  });

  test('regression: a quoted value after a secret key (`password="…"`) was shown whole after the mask (`password=***"hunter2"`) in log lines, profiles and the debug page', async () => {
    const app = profiledApp({
      logFormat: 'line',
      routes: [
        {
          name: 'login',
          path: '/login',
          controller: (request) => {
            request.logger.warning('app', 'login failed user="ada" password="CANARY pw" api_key=\'CANARY_KEY\' ip=10.0.0.1');
            return Res.html('<html><body>no</body></html>', 401);
          },
        },
      ],
    });
    const response = await get(app, '/login');
    const line = app.logs.find((l) => l.includes('login failed'))!;
    assert.match(line, /app\.WARNING: login failed user="ada" password="\*\*\*" api_key='\*\*\*' ip=10\.0\.0\.1 /);
    const kept = await everythingKept(app, response);
    assert.ok(!kept.includes('CANARY'), 'a quoted secret value is kept somewhere');
  });

  test('regression: a quoted credential in an exception message (`Invalid token "eyJ…"`) was stored, logged and shown on the profiler\'s exception page', async () => {
    const app = profiledApp({
      logFormat: 'json',
      routes: [
        {
          name: 'api',
          path: '/api',
          controller: (request) => {
            throw new Error(`Invalid token "${request.headers.get('x-api-token')}" for member 42`);
          },
        },
      ],
    });
    const response = await get(app, '/api', { headers: { 'x-api-token': JWT } });
    assert.equal(response.status, 500);
    const profile = await profileOf(app, response);
    assert.equal(profile.exception?.message, 'Invalid token "***" for member 42');
    assert.equal(profile.request.headers['x-api-token'], '***');
    assert.ok(!(await everythingKept(app, response)).includes('CANARY_JWT'));
    // A word in quotes after "token" reads as English and stays.
    const plain = profiledApp({ routes: [{ name: 'p', path: '/p', controller: () => { throw new Error('The token "expired" at midnight'); } }] });
    assert.equal((await profileOf(plain, await get(plain, '/p'))).exception?.message, 'The token "expired" at midnight');
  });

  test('regression: a JSON document inside a log message, a context string or an exception message (an upstream\'s token response) kept its access and refresh tokens', async () => {
    const app = profiledApp({
      logFormat: 'json',
      routes: [
        {
          name: 'callback',
          path: '/callback',
          controller: (request) => {
            request.logger.info('app', 'token endpoint answered', { body: upstream });
            throw new Error(`OAuth token exchange failed: ${upstream}`);
          },
        },
      ],
    });
    const response = await get(app, '/callback');
    const profile = await profileOf(app, response);
    assert.equal(profile.exception?.message, 'OAuth token exchange failed: {"access_token":"***","token_type":"***","refresh_token":"***","expires_in":3600}');
    const kept = await everythingKept(app, response);
    for (const canary of ['CANARY_ACCESS', 'CANARY_REFRESH']) assert.ok(!kept.includes(canary), canary);
    // What is not secret in the same document stays readable.
    assert.ok(app.logs.some((l) => l.includes('\\"expires_in\\":3600')));
  });

  test('regression: a header or parameter named for a text tokenizer (X-Tokenizer-Version, tokenizer=icu) was masked as a token', async () => {
    const app = profiledApp({
      routes: [{ name: 'search', path: '/search', controller: () => Res.json({ ok: true }, 200, { 'x-tokenizer-version': '3.1.4' }) }],
    });
    const response = await get(app, '/search?tokenizer=icu&page=2&token=CANARY_T', { headers: { 'x-tokenizer-version': '3.1.4', 'x-token': 'CANARY_X' } });
    const profile = await profileOf(app, response);
    assert.equal(profile.request.headers['x-tokenizer-version'], '3.1.4');
    assert.equal(profile.response.headers['x-tokenizer-version'], '3.1.4');
    assert.equal(profile.request.query.tokenizer, 'icu');
    assert.equal(profile.url, `${ORIGIN}/search?page=2&token=***&tokenizer=icu`);
    // Real tokens beside it are still masked.
    assert.equal(profile.request.headers['x-token'], '***');
    assert.equal(profile.request.query.token, '***');
  });
  test('regression: a JWT under a name that says nothing (X-JWT, X-Upstream, ?t=, a log message) was stored whole in the profile and the logs', async () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJDQU5BUllfU1VCIn0.CANARY_SIGNATURE';
    const app = profiledApp({
      logFormat: 'json',
      routes: [{ name: 'hook', path: '/hook', controller: (r) => { r.logger.info('app', `forwarding ${token} upstream`); return Res.json({ ok: true }); } }],
    });
    const response = await get(app, `/hook?t=${token}&page=2`, { headers: { 'x-jwt': token, 'x-upstream': token, 'x-request-id': 'eyJ-not-a-jwt' } });
    assert.equal(response.status, 200);
    const kept = await everythingKept(app, response);
    assert.ok(!kept.includes('CANARY_SIGNATURE') && !kept.includes('eyJzdWIi'), 'the token nowhere');
    assert.ok(kept.includes('page=2') && kept.includes('eyJ-not-a-jwt'), 'what is no JWT stays readable');
  });
});
