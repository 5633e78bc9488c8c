import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { highlightLine } from '../../src/debug/error-page/highlight.ts';
import { prettyJson, toSafeJson } from '../../src/debug/error-page/safe-json.ts';

describe('safe JSON for contexts and thrown values', () => {
  test('cycles, throwing getters, BigInt, symbols, functions, dates, maps, sets, errors', () => {
    const value: Record<string, unknown> = { n: 1n, s: Symbol('k'), f: function named() {}, d: new Date(0), bad: new Date(NaN), m: new Map([['a', 1]]), set: new Set([1, 2]), e: new TypeError('t'), u: undefined, inf: Infinity };
    value.self = value;
    Object.defineProperty(value, 'trap', { enumerable: true, get: () => { throw new Error('trap!'); } });
    assert.deepEqual(toSafeJson(value), {
      n: '1n', s: 'Symbol(k)', f: '[function named]', d: '1970-01-01T00:00:00.000Z', bad: 'Invalid Date', m: { '[Map(1)]': { a: 1 } }, set: { '[Set(2)]': [1, 2] },
      e: '[object] (TypeError: t)', u: '[undefined]', inf: 'Infinity', self: '[circular]', trap: '[unreadable: trap!]',
    });
  });

  test('a Proxy whose traps throw', () => {
    const p = new Proxy({}, { ownKeys: () => { throw new Error('no keys'); } });
    assert.deepEqual(toSafeJson({ p }), { p: '[unreadable: no keys]' });
  });

  test('bounded: depth, breadth, string length, total output', () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 20; i++) deep = (deep.next = {}) as Record<string, unknown>;
    assert.match(JSON.stringify(toSafeJson(top)), /\[object Object\]/);
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    assert.equal((toSafeJson(wide) as Record<string, unknown>)['…'], '400 more keys');
    assert.match(toSafeJson('x'.repeat(10_000)) as string, /… \(6000 more characters\)$/);
    assert.ok(prettyJson(Array.from({ length: 100 }, () => 'y'.repeat(1000))).length < 20_100);
  });
});

describe('code excerpt highlighting', () => {
  test('every token is escaped', () => {
    const state = { inComment: false, inTemplate: false };
    const html = highlightLine('const s = "<script>alert(1)</script>"; /* </pre> */ x < y && `<img src=x>`; // <b>', state);
    assert.ok(!/<(?!\/?span)/.test(html), html);
    assert.ok(html.includes('&lt;script&gt;'));
    assert.ok(html.includes('<span class="hl-k">const</span>'));
  });

  test('block comments and template literals carry over lines', () => {
    const state = { inComment: false, inTemplate: false };
    assert.equal(highlightLine('/* start', state), '<span class="hl-c">/* start</span>');
    assert.equal(state.inComment, true);
    assert.equal(highlightLine('still <here> */ x', state), '<span class="hl-c">still &lt;here&gt; */</span> x');
    assert.equal(state.inComment, false);
    highlightLine('const t = `a', state);
    assert.equal(state.inTemplate, true);
    assert.equal(highlightLine('b` + 1', state), '<span class="hl-s">b&#x60;</span> + <span class="hl-n">1</span>');
  });
});
