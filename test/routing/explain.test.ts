/** explain(): the profiler's routing panel. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Router } from '../../src/routing/router.ts';
import { route } from './helpers.ts';

const r = new Router([
  route('static', '/a'),
  route('byId', '/m/:id', ['GET'], { requirements: { id: '\\d+' } }),
  route('post', '/m/:id', ['POST']),
  route('dir', '/x/'),
  route('slug', '/m/:slug', ['GET']),
  route('last', '/last'),
]);

const outcomes = (path: string, method: string) => r.explain(path, method).map((e) => `${e.name}: ${e.outcome}`);

describe('explain()', () => {
  test('a match: earlier routes say why not, later ones are not examined', () => {
    assert.deepEqual(outcomes('/m/abc', 'GET'), [
      'static: path does not match',
      'byId: requirement not met',
      'post: method not allowed',
      'dir: path does not match',
      'slug: match',
      'last: not examined',
    ]);
  });

  test('a 405', () => {
    assert.deepEqual(outcomes('/m/12', 'PUT'), [
      'static: path does not match',
      'byId: method not allowed',
      'post: method not allowed',
      'dir: path does not match',
      'slug: method not allowed',
      'last: path does not match',
    ]);
  });

  test('a trailing-slash redirect stops the pass for GET/HEAD; not for POST', () => {
    assert.deepEqual(outcomes('/x', 'GET').slice(3), ['dir: trailing slash differs', 'slug: not examined', 'last: not examined']);
    assert.deepEqual(outcomes('/x', 'HEAD').slice(3), ['dir: trailing slash differs', 'slug: not examined', 'last: not examined']);
    assert.deepEqual(outcomes('/x', 'POST').slice(3), ['dir: trailing slash differs', 'slug: path does not match', 'last: path does not match']);
  });

  test('entries carry name, path and methods in table order', () => {
    const e = r.explain('/a', 'GET');
    assert.deepEqual(e[0], { name: 'static', path: '/a', methods: [], outcome: 'match' });
    assert.deepEqual(e[2], { name: 'post', path: '/m/:id', methods: ['POST'], outcome: 'not examined' });
    assert.deepEqual(e.map((x) => x.name), ['static', 'byId', 'post', 'dir', 'slug', 'last']);
  });

  test('agrees with match() on which route matched', () => {
    for (const [path, method] of [['/a', 'GET'], ['/m/5', 'GET'], ['/m/5', 'POST'], ['/m/q', 'HEAD'], ['/last', 'DELETE']]) {
      const matched = r.match(path!, method!).route.name;
      assert.deepEqual(r.explain(path!, method!).filter((e) => e.outcome === 'match').map((e) => e.name), [matched]);
    }
  });

  test('malformed escapes are "path does not match"', () => {
    assert.equal(r.explain('/m/%E0%A4%A', 'GET')[1]!.outcome, 'path does not match');
  });
});
