import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combineHeaderParts, splitHeader, unquoteHeader } from '../../src/http/header-utils.ts';

// Each row: the header, the separators, what Symfony 5.4's HeaderUtils::split returns for them.
const splits: Array<[string, string, unknown]> = [
  ['foo=123, bar', ',', ['foo=123', 'bar']],
  [' foo=123, bar ', ',', ['foo=123', 'bar']],
  ['foo=123; bar', ',;', [['foo=123', 'bar']]],
  ['foo=123, bar', ',;', [['foo=123'], ['bar']]],
  ['foo=123, bar', '=', ['foo', '123, bar']],
  [' foo = 123, bar ', '=', ['foo', '123, bar']],
  ['foo=123, bar', ',=', [['foo', '123'], ['bar']]],
  ['foo=123, bar;; foo=456', ',;=', [[['foo', '123']], [['bar'], ['foo', '456']]]],
  ['foo="a,b;c=d"', ',;=', [[['foo', 'a,b;c=d']]]],
  ['foo,,,, bar', ',', ['foo', 'bar']],
  [',foo, bar,', ',', ['foo', 'bar']],
  [' , foo, bar, ', ',', ['foo', 'bar']],
  ['foo "bar"', ',', ['foo bar']],
  ['"foo" bar', ',', ['foo bar']],
  ['"foo" "bar"', ',', ['foo bar']],
  ['foo_cookie=foo=1&bar=2&baz=3; expires=Tue, 22-Sep-2020 06:27:09 GMT; path=/', ';=', [['foo_cookie', 'foo=1&bar=2&baz=3'], ['expires', 'Tue, 22-Sep-2020 06:27:09 GMT'], ['path', '/']]],
  ['foo_cookie=foo==; path=/', ';=', [['foo_cookie', 'foo=='], ['path', '/']]],
  ['foo_cookie=foo=; path=/', ';=', [['foo_cookie', 'foo='], ['path', '/']]],
  ['foo_cookie=foo="a=b"; path=/', ';=', [['foo_cookie', 'foo=a=b'], ['path', '/']]],
  // A form feed is a blank to the pattern but not to PHP's trim(): it is left out, not trimmed.
  ['\ffoo, bar\f', ',', ['foo', 'bar']],
  // Not valid header values; they still split, the broken part kept.
  ['', ',', []],
  [',,,', ',', []],
  ['foo, "bar", "baz', ',', ['foo', 'bar', 'baz']],
  ['foo, "bar, baz', ',', ['foo', 'bar, baz']],
  ['foo, "bar, baz\\', ',', ['foo', 'bar, baz\\']],
  ['foo, "bar, baz\\\\', ',', ['foo', 'bar, baz\\']],
];

for (const [header, separators, expected] of splits) {
  test(`splitHeader(${JSON.stringify(header)}, '${separators}') is HeaderUtils::split's answer`, () => {
    assert.deepEqual(splitHeader(header, separators), expected);
  });
}

test('unquoteHeader drops every quote and resolves every escape, as HeaderUtils::unquote', () => {
  assert.equal(unquoteHeader('"foo bar"'), 'foo bar');
  assert.equal(unquoteHeader('"foo \\"bar\\""'), 'foo "bar"');
  assert.equal(unquoteHeader('"foo \\\\ bar"'), 'foo \\ bar');
  assert.equal(unquoteHeader('a"b"c'), 'abc');
  assert.equal(unquoteHeader('plain'), 'plain');
});

test('combineHeaderParts: names lower-cased (ASCII only), a bare name is true, the last of a repeated name wins', () => {
  const combined = combineHeaderParts([['FOR', '1.2.3.4'], ['Proto'], ['for', '5.6.7.8'], ['\u212Aey', 'kelvin']]);
  assert.deepEqual([...combined], [['for', '5.6.7.8'], ['proto', true], ['\u212Aey', 'kelvin']]);
});
