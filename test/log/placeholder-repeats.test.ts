import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interpolate, MAX_REPEATED_PLACEHOLDER_TEXT } from '../../src/log/record.ts';
import { send, testApp } from '../pipeline/harness.ts';

test('regression: a Referer of repeated {exception} placeholders cannot blow one 404 up into a log line of megabytes', async () => {
  const { app, lines } = testApp({ env: 'prod', debug: false, logExcludedHttpCodes: [] });
  const referer = 'http://r/' + '{exception}'.repeat(1400);
  const res = await send(app, '/nowhere', { headers: { referer } });
  assert.equal(res.status, 404);
  const line = lines.find((l) => l.includes('request.ERROR: Uncaught Exception NotFoundHttpException'));
  assert.ok(line, 'the 404 is logged');
  // The exception's text is printed at its first placeholder; its repeats add at most the bound.
  assert.ok(line.includes('(from "http://r/NotFoundHttpException: No route found for'), 'the first placeholder is filled');
  assert.ok(line.length < 4 * referer.length + MAX_REPEATED_PLACEHOLDER_TEXT, `a line of ${line.length} characters`);
  assert.ok(line.includes('{exception}{exception}'), 'repeats past the bound stay as written');
});

test('regression: a key repeated in a message is still printed at each place while short', () => {
  assert.equal(interpolate('{a} and {a}, {b} or {a}', { a: 'x', b: 2 }), 'x and x, 2 or x');
  assert.equal(interpolate('{a}{missing}{a}', { a: '' }), '{missing}');
});

test('regression: repeats of a long value stop at the bound, whatever the number of placeholders', () => {
  const value = 'v'.repeat(1000);
  const out = interpolate('{a}'.repeat(10_000), { a: value });
  assert.ok(out.length <= value.length + MAX_REPEATED_PLACEHOLDER_TEXT + 3 * 10_000, `${out.length} characters`);
  assert.ok(out.startsWith(value + value), 'the first repeats are printed');
  assert.ok(out.endsWith('{a}{a}'), 'the last ones stay as written');
});
