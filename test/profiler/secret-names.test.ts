/**
 * Regressions of the secret-name policy and of secrets in free text (mask.ts): names that hold one-time
 * codes, card data, remember-me logins and OAuth codes; passwords with an unencoded `@`; a query
 * string or key=value log line whose first key is secret.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isSecretName, maskContent, maskHeader, maskQuerySecrets, sanitize, scrubText } from '../../src/debug/profiler/mask.ts';
import { formatRecord } from '../../src/log/format.ts';
import type { LogRecord } from '../../src/log/record.ts';
import { HttpResponse as Res } from '../../src/index.ts';
import { get, profiledApp, profileOf } from './support.ts';

function record(message: string, context: Record<string, unknown>): LogRecord {
  return { datetime: new Date(0), channel: 'app', level: 200, levelName: 'info', message, context, extra: {} };
}

describe('secret names', () => {
  test('regression: one-time codes, card data and remember-me logins are masked by name', () => {
    const secret = ['otp', 'totp', 'otp_code', 'pin', 'user[pin]', 'cardPin', 'cvv', 'cvc', 'CVV2', 'card_number', 'cardNumber', 'cc_number',
      'security_code', 'mfa_code', 'verification_code', 'REMEMBERME', '_remember_me', 'code_verifier', 'client_assertion'];
    for (const name of secret) assert.ok(isSecretName(name), name);
    for (const name of ['option', 'spinner', 'shopping', 'pinned', 'isPinned', 'hotpot', 'code', 'country_code', 'pincode']) assert.ok(!isSecretName(name), name);
    const masked = sanitize({ otp: '123456', card: { number: '4111', cvv: '737' }, payment: { card_number: '4111111111111111' }, login: { REMEMBERME: 'App%5CUser:YWRh:1:sig' } });
    assert.deepEqual(masked, { otp: '***', card: { number: '4111', cvv: '***' }, payment: { card_number: '***' }, login: { REMEMBERME: '***' } });
    const line = formatRecord(record('Checkout {id}', { id: 7, cvc: '737', pin: '8642', remember_me: 'App%5CUser:YWRh:1:sig' }), 'json');
    for (const leaked of ['737', '8642', 'YWRh']) assert.ok(!line.includes(leaked), `log line leaks ${leaked}: ${line}`);
    assert.equal(maskContent('{"pin":"0000","cvc":"737","amount":5}', 'application/json', 10_000).includes('0000'), false);
  });

  test('regression: a DPoP proof and DPoP credentials are masked', () => {
    assert.equal(maskHeader('DPoP', 'eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJodG0iOiJHRVQifQ.sig'), '***');
    assert.equal(scrubText('sent Authorization: DPoP Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU'), 'sent Authorization: DPoP ***');
  });

  test("regression: OAuth's authorization code is masked in URLs and request parameters, an error's code is not", async () => {
    assert.equal(maskQuerySecrets('/connect/check?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz'), '/connect/check?code=***&state=xyz');
    assert.equal(maskContent('grant_type=authorization_code&code=SplxlOBeZQQ&redirect_uri=x', 'application/x-www-form-urlencoded', 10_000), 'grant_type=authorization_code&code=***&redirect_uri=x');
    assert.ok(formatRecord(record('connect failed', { code: 'ECONNREFUSED' }), 'json').includes('ECONNREFUSED'));

    const app = profiledApp({
      routes: [{ name: 'connect_check', path: '/connect/check', methods: ['GET', 'POST'], controller: () => Res.json({ ok: true }) }],
    });
    const response = await get(app, '/connect/check?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz', {
      method: 'POST',
      body: 'code=BodyCodeCANARY&x=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const profile = await profileOf(app, response);
    const stored = JSON.stringify(profile);
    for (const leaked of ['SplxlOBeZQQYbYS6WxSbIA', 'BodyCodeCANARY']) assert.ok(!stored.includes(leaked), `profile leaks ${leaked}`);
    assert.equal(profile.request.query.code, '***');
    assert.equal(profile.request.query.state, 'xyz');
    assert.equal(profile.request.body.code, '***');
    for (const line of app.logs) assert.ok(!line.includes('SplxlOBeZQQYbYS6WxSbIA'), `log leaks the code: ${line}`);
  });
});

describe('secrets in free text', () => {
  test('regression: a URL password with an unencoded @ is masked whole', () => {
    assert.equal(scrubText('connect to mysql://root:p@ss@db:3306/app failed'), 'connect to mysql://root:***@db:3306/app failed');
    assert.equal(maskQuerySecrets('https://u:p@ss@h.test/?a=1'), 'https://u:***@h.test/?a=1');
    // One `@` and a host path after it are read as before.
    assert.equal(scrubText('http://host:8080/a@b and https://u:pw@h/x@y'), 'http://host:8080/a@b and https://u:***@h/x@y');
  });

  test('regression: a query string or key=value text whose first key is secret is masked', () => {
    assert.equal(scrubText('token=abc123&page=2'), 'token=***&page=2');
    assert.equal(scrubText('=x password=hunter2'), '=x password=***');
    assert.equal(scrubText('login failed user=ada password=hunter2 ip=1.2.3.4'), 'login failed user=ada password=*** ip=1.2.3.4');
    assert.equal(scrubText('see http://a.test/cb?token=abc&x=1'), 'see http://a.test/cb?token=***&x=1');
    const line = formatRecord(record('Query: {q}', { q: 'access_token=CANARY_FIRST&page=1' }), 'line');
    assert.ok(!line.includes('CANARY_FIRST'), line);
    // Text without a key keeps its bytes, also when it opens with a separator or nothing.
    for (const text of ['<https://x.test/>; rel=next', '', '=', ' = ', 'a=b', '?&;#']) assert.equal(scrubText(text), text);
  });

  // No clock here (speed belongs to the benchmarks): each input is one a backtracking or rescanning
  // scrubber would take minutes over, so a regression shows as a stalled suite, and the answers are checked.
  test('free-text masking of long hostile text: what is no secret stays, what is one goes', () => {
    const unchanged = ['a '.repeat(100_000) + '=', '?'.repeat(200_000) + '=', ('://a:b' + 'x'.repeat(50)).repeat(4000), ' x=1'.repeat(50_000), 'password ' + 'a'.repeat(200_000) + '=' + ' b='.repeat(50_000)];
    for (const text of unchanged) assert.ok(scrubText(text) === text, JSON.stringify(text.slice(0, 20)));
    assert.equal(scrubText('://u:' + '@'.repeat(200_000)), '://u:***@');
    assert.equal(scrubText('token ' + 'a='.repeat(100_000)), 'token ***');
  });
});

test("an error code in a key=value log line stays readable; a query's OAuth code does not", () => {
  assert.equal(scrubText('upstream failed code=502 reason=timeout'), 'upstream failed code=502 reason=timeout');
  assert.equal(scrubText('redirected to https://app.test/cb?code=SplxlOBeZQQ&state=1'), 'redirected to https://app.test/cb?code=***&state=1');
});
