import assert from 'node:assert/strict';
import { test } from 'node:test';
import { records, send, testApp } from '../pipeline/harness.ts';

test('debug mode: after the first request, runtime warnings and deprecations are logged on channel php', async () => {
  const { app, lines } = testApp({ logFormat: 'json' });
  await send(app, '/_profiler/abc123');
  lines.length = 0;
  const seen = new Promise<void>((resolve) => process.once('warning', () => setImmediate(resolve)));
  process.emitWarning('Something odd happened', { code: 'IRMS_TEST' });
  await seen;
  const deprecated = new Promise<void>((resolve) => process.once('warning', () => setImmediate(resolve)));
  process.emitWarning('old API', 'DeprecationWarning');
  await deprecated;
  const php = records(lines).filter((r) => r.channel === 'php');
  assert.deepEqual(php.map((r) => [r.level_name, r.message]), [
    ['WARNING', 'Warning: Something odd happened'],
    ['INFO', 'User Deprecated: old API'],
  ]);
  assert.equal(php[0].context.code, 'IRMS_TEST');
});

test('non-debug mode has no debug handlers', async () => {
  const { app, lines } = testApp({ env: 'prod', debug: false, logFormat: 'json', logLevel: 'debug' });
  await send(app, '/anything');
  lines.length = 0;
  const seen = new Promise<void>((resolve) => process.once('warning', () => setImmediate(resolve)));
  process.emitWarning('ignored by prod apps');
  await seen;
  assert.ok(!records(lines).some((r) => r.channel === 'php'));
});
