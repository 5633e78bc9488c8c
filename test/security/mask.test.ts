import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSecretKey, maskSecrets, maskToken } from '../../src/security/mask.ts';

test('maskToken keeps the first 4 characters', () => {
  assert.equal(maskToken(''), '');
  assert.equal(maskToken(null), '');
  assert.equal(maskToken('abcdefgh'), 'abcd…');
  assert.equal(maskToken('ab'), 'ab…');
});

test('secret-named keys are masked at any depth; __proto__ stays a plain key', () => {
  for (const key of ['password', '_password', 'passwd', 'plainPassword', 'secret', 'client_secret', 'irms_token', 'csrfToken', 'Authorization', 'cookie', 'Set-Cookie', 'session_id', 'PHPSESSID', 'api_key', 'apiKey']) {
    assert.ok(isSecretKey(key), key);
  }
  for (const key of ['member_id', 'name', 'passenger', 'compass', 'email']) assert.ok(!isSecretKey(key), key);
  const input = JSON.parse('{"user":{"name":"ada","password":"p"},"list":[{"token":"t"}],"__proto__":{"secret":"s"},"empty_token":""}');
  const masked = maskSecrets(input);
  assert.deepEqual(masked.user, { name: 'ada', password: '***' });
  assert.deepEqual(masked.list, [{ token: '***' }]);
  assert.ok(Object.hasOwn(masked, '__proto__'));
  assert.equal(Object.getPrototypeOf(masked), Object.prototype);
  assert.deepEqual({ ...masked['__proto__'] }, { secret: '***' });
  assert.equal(masked.empty_token, '', 'empty values stay empty');
  assert.equal(input.user.password, 'p', 'the input is not changed');
});

test('regression: X-JWT, a SAMLResponse form field and a webhook\'s X-Shopify-Hmac-Sha256 were kept unmasked (names with no token/secret word in them)', () => {
  for (const key of ['jwt', 'X-JWT', 'jwt_token', 'SAMLResponse', 'saml_response', 'X-Shopify-Hmac-Sha256', 'hmac']) assert.ok(isSecretKey(key), key);
  for (const key of ['SAMLRequest', 'RelayState', 'saml_provider']) assert.ok(!isSecretKey(key), key);
});

test('regression: a credit_card field was stored unmasked in profiles and logs (card_number and cc_number were masked)', () => {
  for (const key of ['credit_card', 'creditCard', 'credit-card', 'payment[credit_card]', 'CREDITCARD']) assert.ok(isSecretKey(key), key);
  assert.deepEqual(maskSecrets({ order: { credit_card: '4111111111111111', total: 12 } }), { order: { credit_card: '***', total: 12 } });
});
