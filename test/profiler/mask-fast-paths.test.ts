/**
 * The masking shortcuts the profiler takes per request give what the general functions give: headers
 * read from a flat list, parameter bags read key by key, secret-name answers remembered.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isSecretName, maskHeader, maskHeaders, sanitize, sanitizeFields, sanitizeRecord } from '../../src/debug/profiler/mask.ts';
import { isSecretKey } from '../../src/security/mask.ts';

describe('masking fast paths', () => {
  test('maskHeaders masks a flat header list as maskHeader does line by line, bound included', () => {
    const lines = ['host', 'x.test', 'authorization', 'Bearer CANARY', 'cookie', 'a=1; b=2', 'referer', 'https://x.test/?token=CANARY&page=2', '__proto__', 'proto', 'x-debug-token', 'abcdef'];
    const masked = maskHeaders(lines);
    assert.deepEqual(Object.keys(masked), ['host', 'authorization', 'cookie', 'referer', '__proto__', 'x-debug-token']);
    for (let i = 0; i < lines.length; i += 2) assert.equal(masked[lines[i]!], maskHeader(lines[i]!, lines[i + 1]!));
    assert.equal(Object.getPrototypeOf(masked), Object.prototype, 'a __proto__ header stays a plain key');
    assert.doesNotMatch(JSON.stringify(masked), /CANARY/);
    const many: string[] = [];
    for (let i = 0; i < 150; i++) many.push(`x-h-${i}`, `v${i}`);
    const bounded = maskHeaders(many, 100);
    assert.equal(Object.keys(bounded).length, 101);
    assert.equal(bounded['…'], 'more headers not kept');
  });

  test('sanitizeFields reads keys through a function and sanitizes as sanitizeRecord does', () => {
    const source: Record<string, unknown> = {
      password: 'CANARY',
      empty_password: '',
      name: 'ada',
      nested: { api_key: 'CANARY', list: [1, 'two', { secret: 'CANARY' }] },
      when: new Date(0),
      fn: function named() {},
      big: 10n,
    };
    const keys = Object.keys(source);
    assert.deepEqual(sanitizeFields(keys, (k) => source[k]), sanitizeRecord(source));
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 120; i++) wide[`k${i}`] = i;
    assert.deepEqual(sanitizeFields(Object.keys(wide), (k) => wide[k]), sanitizeRecord(wide));
    const throwing = sanitizeFields(['bad'], () => {
      throw new Error('getter');
    });
    assert.deepEqual(throwing, { bad: '[unreadable]' });
  });

  test('sanitize: cycles, shared values, depth, Map, Set and bytes as before', () => {
    const shared = { v: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared };
    cyclic.self = cyclic;
    assert.deepEqual(sanitize(cyclic), { shared: { v: 1 }, again: { v: 1 }, self: '[circular]' });
    assert.deepEqual(sanitize({ a: { b: { c: 1 } } }, { depth: 2, keys: 100, items: 100, string: 100 }), { a: { b: '[object]' } });
    assert.deepEqual(sanitize(new Map([['token', 'CANARY'], ['k', 'v']])), { token: '***', k: 'v' });
    assert.deepEqual(sanitize(new Set([1, 2])), [1, 2]);
    assert.equal(sanitize(new Uint8Array(3)), '[3 bytes]');
    assert.deepEqual(sanitize([1, 2, 3], { depth: 6, keys: 100, items: 2, string: 100 }), [1, 2, '… 1 more items']);
    const nullProto = Object.assign(Object.create(null), { password: 'CANARY', ok: true });
    assert.deepEqual(sanitize(nullProto), { password: '***', ok: true });
  });

  test('remembered answers for secret names stay right', () => {
    for (let round = 0; round < 2; round++) {
      assert.equal(isSecretName('password'), true);
      assert.equal(isSecretName('X-Api-Key'), true);
      assert.equal(isSecretName('PHPSESSID'), true);
      assert.equal(isSecretName('page'), false);
      assert.equal(isSecretKey('irms_token'), true);
      assert.equal(isSecretKey('route'), false);
      assert.equal(isSecretName(`${'x'.repeat(80)}password`), true, 'long names are tested, not remembered');
    }
    for (let i = 0; i < 5000; i++) assert.equal(isSecretName(`field${i}`), false); // past the bound: cleared, still right
    assert.equal(isSecretName('client_secret'), true);
  });

  test('a header value seen again gives the same masked value; secrets are masked every time', () => {
    for (let i = 0; i < 3; i++) {
      assert.equal(maskHeader('content-type', 'text/plain; charset=UTF-8'), 'text/plain; charset=UTF-8');
      assert.equal(maskHeader('referer', 'https://x.test/?token=CANARY&page=2'), 'https://x.test/?token=***&page=2');
      assert.equal(maskHeader('referer', 'https://x.test/?page=2'), 'https://x.test/?page=2');
      assert.equal(maskHeader('x-note', 'sent Bearer CANARY_TOKEN'), 'sent Bearer ***');
      assert.equal(maskHeader('Authorization', 'Bearer CANARY'), 'Bearer ***');
    }
    // Masking can lengthen a value: the bound applies to the masked value.
    const grown = maskHeader('referer', '?a=1&t=x'.replace('t=', 'token='), 12);
    assert.ok(grown.startsWith('?a=1&token=*'), grown);
    assert.equal(grown, maskHeader('referer', '?a=1&token=x', 12));
    assert.ok(grown.includes('more characters'), grown);
    assert.equal(maskHeader('x-long', 'y'.repeat(600), 100).length < 200, true);
  });
});
