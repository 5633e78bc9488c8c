import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, HttpResponse, NotFoundHttpException } from '../../src/index.ts';
import { loadConfig } from '../../src/app/config.ts';

function appWithLogs(env: 'dev' | 'prod', environment: Record<string, string> = {}) {
  const lines: string[] = [];
  const app = createApp({
    env,
    environment: { LOG_FORMAT: 'json', ...environment },
    logSink: (l) => lines.push(l),
    routes: [
      { name: 'boom', path: '/boom', controller: () => { throw new Error('kaput'); } },
      { name: 'missing', path: '/missing', controller: () => { throw new NotFoundHttpException('no such member'); } },
      { name: 'ok', path: '/ok', methods: ['GET'], controller: () => HttpResponse.text('ok') },
    ],
  });
  const uncaught = () => lines.map((l) => JSON.parse(l)).filter((r) => r.message.startsWith('Uncaught Exception'));
  return { app, uncaught };
}

test('debug mode logs a 404 as ERROR on channel request, with the throw site', async () => {
  const { app, uncaught } = appWithLogs('dev');
  await app.fetch(new Request('http://localhost/robots.txt'));
  const [record] = uncaught();
  assert.equal(record.channel, 'request');
  assert.equal(record.level_name, 'ERROR');
  assert.match(record.message, /^Uncaught Exception NotFoundHttpException: "No route found for "GET http:\/\/localhost\/robots.txt"" at src\/listeners\/router-listener\.ts line \d+$/);
});

test('production mode does not log 404 and 405, as Symfony\'s prod recipe (excluded_http_codes)', async () => {
  const { app, uncaught } = appWithLogs('prod');
  assert.equal((await app.fetch(new Request('http://localhost/robots.txt'))).status, 404);
  assert.equal((await app.fetch(new Request('http://localhost/ok', { method: 'DELETE' }))).status, 405);
  assert.equal((await app.fetch(new Request('http://localhost/missing'))).status, 404);
  assert.deepEqual(uncaught(), []);
});

test('production mode still logs server errors as CRITICAL', async () => {
  const { app, uncaught } = appWithLogs('prod');
  assert.equal((await app.fetch(new Request('http://localhost/boom'))).status, 500);
  const [record] = uncaught();
  assert.equal(record.level_name, 'CRITICAL');
  assert.match(record.message, /^Uncaught Exception Error: "kaput" at .+ line \d+$/);
});

test('LOG_EXCLUDED_HTTP_CODES= (empty) logs every routing failure in production too', async () => {
  const { app, uncaught } = appWithLogs('prod', { LOG_EXCLUDED_HTTP_CODES: '' });
  await app.fetch(new Request('http://localhost/robots.txt'));
  const [record] = uncaught();
  assert.equal(record.level_name, 'ERROR');
  assert.match(record.message, /NotFoundHttpException: "No route found for "GET http:\/\/localhost\/robots.txt"" at src\/listeners\/router-listener\.ts line \d+$/);
});

test('LOG_EXCLUDED_HTTP_CODES is validated', () => {
  assert.deepEqual(loadConfig({}, { APP_ENV: 'prod' }).logExcludedHttpCodes, [404, 405]);
  assert.deepEqual(loadConfig({}, {}).logExcludedHttpCodes, []);
  assert.deepEqual(loadConfig({}, { LOG_EXCLUDED_HTTP_CODES: '404, 403' }).logExcludedHttpCodes, [404, 403]);
  assert.throws(() => loadConfig({}, { LOG_EXCLUDED_HTTP_CODES: '4o4' }), /LOG_EXCLUDED_HTTP_CODES/);
});
