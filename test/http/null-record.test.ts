import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nullRecord } from '../../src/http/null-record.ts';
import { ParameterBag } from '../../src/http/parameter-bag.ts';

test('nullRecord is an object without prototype: __proto__ and constructor are own keys, nothing is inherited', () => {
  const record = nullRecord();
  assert.equal(Object.getPrototypeOf(record), null);
  assert.equal(record.toString, undefined);
  record['__proto__'] = { polluted: true };
  record['constructor'] = 'c';
  assert.equal(Object.getPrototypeOf(record), null, 'assigning __proto__ does not set the prototype');
  assert.deepEqual(Object.keys(record), ['__proto__', 'constructor']);
  assert.equal(JSON.stringify(record), '{"__proto__":{"polluted":true},"constructor":"c"}');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('ParameterBag.all() is such a record, in insertion order, and a copy', () => {
  const bag = new ParameterBag<unknown>([['b', 1], ['__proto__', 'x'], ['a', [1, 2]]]);
  const all = bag.all();
  assert.equal(Object.getPrototypeOf(all), null);
  assert.equal(JSON.stringify(all), '{"b":1,"__proto__":"x","a":[1,2]}');
  all.b = 2;
  assert.equal(bag.get('b'), 1);
});
