import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig, parseByteSize } from '../../src/app/config.ts';

test('defaults follow CONTRACT §2', () => {
  const c = loadConfig({}, {});
  assert.equal(c.env, 'dev');
  assert.equal(c.debug, true);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 8000);
  assert.equal(c.logLevel, 'debug');
  assert.equal(c.logFormat, 'line');
  assert.equal(c.defaultLocale, 'en');
  assert.equal(c.profilerDsn, 'memory://?max=1000');
  assert.equal(c.bodyLimit, 1024 * 1024);
  assert.equal(c.disallowRobotsIndexing, true);
  assert.ok(c.secret.length >= 32, 'a random secret when APP_SECRET is unset');
});

test('prod turns debug off and raises the log level', () => {
  const c = loadConfig({}, { APP_ENV: 'prod' });
  assert.equal(c.debug, false);
  assert.equal(c.logLevel, 'warning');
});

test('environment variables are read', () => {
  const c = loadConfig({}, { APP_ENV: 'prod', APP_DEBUG: '1', PORT: '9001', LOG_FORMAT: 'json', TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1', BODY_LIMIT: '512kb' });
  assert.equal(c.debug, true);
  assert.equal(c.port, 9001);
  assert.equal(c.logFormat, 'json');
  assert.deepEqual(c.trustedProxies, ['10.0.0.0/8', '127.0.0.1']);
  assert.equal(c.bodyLimit, 512 * 1024);
});

test('invalid values stop the start with a message naming the variable', () => {
  assert.throws(() => loadConfig({}, { APP_ENV: 'staging' }), /APP_ENV/);
  assert.throws(() => loadConfig({}, { PORT: '99999' }), /PORT/);
  assert.throws(() => loadConfig({}, { LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
  assert.throws(() => loadConfig({}, { APP_DEBUG: 'maybe' }), /APP_DEBUG/);
  assert.throws(() => parseByteSize('BODY_LIMIT', 'lots'), /BODY_LIMIT/);
});

test('options override the environment', () => {
  assert.equal(loadConfig({ debug: false }, { APP_DEBUG: '1' }).debug, false);
});
