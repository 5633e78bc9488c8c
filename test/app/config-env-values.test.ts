import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/app/config.ts';
import { send, testApp } from '../pipeline/harness.ts';

test('regression: a BODY_LIMIT too large for an exact byte count stopped no start and turned the body limit off', () => {
  for (const value of ['9'.repeat(400), '99999999999999999999', '9999999999gb']) {
    assert.throws(() => loadConfig({}, { BODY_LIMIT: value }), /^Error: BODY_LIMIT must be a size of at most 9007199254740991 bytes/, value);
    assert.throws(() => loadConfig({}, { SESSION_MAX_BYTES: value }), /SESSION_MAX_BYTES must be a size/, value);
    assert.throws(() => loadConfig({}, { PROFILER_DSN: `memory://?max_bytes=${value}` }), /PROFILER_DSN/, value);
  }
  // The largest exact size is still one, as the bodyLimit option takes it.
  assert.equal(loadConfig({}, { BODY_LIMIT: String(Number.MAX_SAFE_INTEGER) }).bodyLimit, Number.MAX_SAFE_INTEGER);
  assert.equal(loadConfig({}, { BODY_LIMIT: '8gb' }).bodyLimit, 8 * 1024 ** 3);
});

test('regression: an empty APP_DEBUG turned debug mode on in dev and test (Symfony reads it as off)', async () => {
  for (const APP_ENV of ['dev', 'test', 'prod', undefined]) {
    const c = loadConfig({}, { APP_ENV, APP_DEBUG: '' });
    assert.equal(c.debug, false, String(APP_ENV));
    assert.equal(c.logLevel, 'warning', 'the log level follows debug mode');
  }
  // Unset, the environment's default stays; the option still wins.
  assert.equal(loadConfig({}, { APP_ENV: 'dev' }).debug, true);
  assert.equal(loadConfig({ debug: true }, { APP_DEBUG: '' }).debug, true);
  // What a client sees: no profiler token, no debug page.
  // `env: undefined` is "not given": APP_ENV decides, as in a deployment.
  const { app } = testApp({ env: undefined, environment: { APP_ENV: 'dev', APP_DEBUG: '' } });
  const res = await send(app, '/nowhere');
  assert.equal(res.status, 404);
  assert.equal(res.headers.get('x-debug-token'), null);
  assert.doesNotMatch(await res.text(), /Stack Trace|NotFoundHttpException/);
});
