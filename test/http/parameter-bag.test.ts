import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ParameterBag } from '../../src/http/parameter-bag.ts';
import { kernelRequest } from '../support/request.ts';

test('regression: HeaderBag did not read `_` as `-`, so CONTENT_TYPE and X_REQUESTED_WITH were null (Symfony strtr)', () => {
  const r = kernelRequest({ headers: { 'content-type': 'text/plain', 'x-requested-with': 'XMLHttpRequest' } });
  assert.equal(r.headers.get('CONTENT_TYPE'), 'text/plain');
  assert.equal(r.headers.get('X_REQUESTED_WITH'), 'XMLHttpRequest');
  assert.equal(r.headers.has('content_type'), true);
  r.headers.set('X_CUSTOM_HEADER', 'v');
  assert.equal(r.headers.get('x-custom-header'), 'v');
  r.headers.remove('CONTENT_TYPE');
  assert.equal(r.headers.get('content-type'), null);
});

test('HeaderBag::get takes a default for an absent header; a present one, even empty, wins', () => {
  const r = kernelRequest({ headers: { 'x-empty': '' } });
  assert.equal(r.headers.get('missing', 'dflt'), 'dflt');
  assert.equal(r.headers.get('missing'), null);
  assert.equal(r.headers.get('x-empty', 'dflt'), '');
  assert.equal(r.headers.get('host', 'dflt'), 'localhost');
});

test('ParameterBag::getInt is PHP (int) of the value or the default', () => {
  const bag = new ParameterBag({ n: '12abc', e: '1e3', s: '  -7.9', x: 'abc', hex: '0x1A', t: true, f: 1.9, neg: -0.5, a: ['1'], empty: [], nul: null, inf: Infinity });
  const got = Object.fromEntries(['n', 'e', 's', 'x', 'hex', 't', 'f', 'neg', 'a', 'empty', 'nul', 'inf'].map((k) => [k, bag.getInt(k)]));
  assert.deepEqual(got, { n: 12, e: 1000, s: -7, x: 0, hex: 0, t: 1, f: 1, neg: 0, a: 1, empty: 0, nul: 0, inf: 0 });
  assert.equal(bag.getInt('missing'), 0);
  assert.equal(bag.getInt('missing', 5), 5);
});

test('ParameterBag::getBoolean is FILTER_VALIDATE_BOOLEAN: 1, true, on, yes (any case, trimmed) and nothing else', () => {
  const bag = new ParameterBag({ a: '1', b: ' TRUE ', c: 'on', d: 'Yes', e: '0', f: 'off', g: 'nope', h: true, i: 1, j: 2, k: ['1'], l: '' });
  const got = Object.fromEntries('abcdefghijkl'.split('').map((k) => [k, bag.getBoolean(k)]));
  assert.deepEqual(got, { a: true, b: true, c: true, d: true, e: false, f: false, g: false, h: true, i: true, j: false, k: false, l: false });
  assert.equal(bag.getBoolean('missing'), false);
  assert.equal(bag.getBoolean('missing', true), true);
});

test('ParameterBag::getAlpha, getAlnum and getDigits keep ASCII letters, letters and digits, digits', () => {
  const bag = new ParameterBag({ v: 'a1-B2+é_c3.', n: -12.5, t: true });
  assert.equal(bag.getAlpha('v'), 'aBc');
  assert.equal(bag.getAlnum('v'), 'a1B2c3');
  assert.equal(bag.getDigits('v'), '123');
  assert.equal(bag.getDigits('n'), '125');
  assert.equal(bag.getDigits('t'), '1');
  assert.equal(bag.getAlpha('missing', 'x-y'), 'xy');
  assert.equal(bag.getAlnum('missing'), '');
});

test('ParameterBag::count is the number of entries', () => {
  const bag = new ParameterBag();
  assert.equal(bag.count(), 0);
  bag.set('a', 1);
  bag.set('b', null);
  assert.equal(bag.count(), 2);
});

test('regression: getBoolean trimmed as String.prototype.trim does, so ?admin=%C2%A0yes (a no-break space) or a form feed before "yes" was true; FILTER_VALIDATE_BOOLEAN trims space, tab, CR, LF and VT only', () => {
  const query = kernelRequest({ target: '/?nbsp=%C2%A0yes&ff=%0Con&em=true%E2%80%83&bom=%EF%BB%BF1&blanks=%20%09%0B%0D%0Atrue%0A' }).query;
  assert.deepEqual(
    ['nbsp', 'ff', 'em', 'bom', 'blanks'].map((k) => query.getBoolean(k)),
    [false, false, false, false, true],
  );
});

test('regression: getInt of an empty JSON object ({"page": {}}) was 1; it is a PHP array there and (int) [] is 0', () => {
  const bag = new ParameterBag(JSON.parse('{"empty": {}, "full": {"a": 1}, "list": []}') as Record<string, unknown>);
  assert.deepEqual([bag.getInt('empty'), bag.getInt('full'), bag.getInt('list')], [0, 1, 0]);
  const nested = kernelRequest({ target: '/?a[x]=1' }).query;
  assert.equal(nested.getInt('a'), 1);
});
