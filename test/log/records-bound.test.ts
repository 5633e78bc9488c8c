/**
 * What the per-request bound on kept log records keeps, seen where a developer reads it: the debug
 * error page's Logs tab and the request's profile.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { MAX_RECORDS_PER_REQUEST } from '../../src/log/logger.ts';
import { get, profiledApp, profileOf } from '../profiler/support.ts';

test('regression: a request that logged 500 lines and then failed lost its "Uncaught Exception" record: the Logs panel and the toolbar said 0 errors', async () => {
  const routes: RouteDefinition[] = [
    {
      name: 'chatty',
      path: '/chatty',
      controller: (request) => {
        for (let i = 0; i < 600; i++) request.logger.info('app', `step ${i}`);
        throw new Error('gave up after 600 steps');
      },
    },
  ];
  const app = profiledApp({ routes });
  const response = await get(app, '/chatty', { headers: { accept: 'text/html' } });
  assert.equal(response.status, 500);
  assert.match(await response.text(), /Uncaught Exception Error: &quot;gave up after 600 steps&quot;/, 'on the error page\'s Logs tab');
  const profile = await profileOf(app, response);
  assert.equal(profile.logs.length, MAX_RECORDS_PER_REQUEST);
  const critical = profile.logs.filter((r) => r.level_name === 'CRITICAL');
  assert.equal(critical.length, 1);
  assert.match(critical[0]!.message, /^Uncaught Exception Error: "gave up after 600 steps"/);
  assert.ok(profile.droppedLogs > 100);
});

test('regression: a URL in a log context was stored in the profile as {} (its fields are accessors); it is its text, secrets masked', async () => {
  const routes: RouteDefinition[] = [
    {
      name: 'callback',
      path: '/callback',
      controller: (request) => {
        request.logger.info('app', 'Calling {target}', { target: new URL('https://api.example/v1/items?access_token=s3cr3t-value&page=2') });
        return HttpResponse.text('ok');
      },
    },
  ];
  const app = profiledApp({ routes });
  const profile = await profileOf(app, await get(app, '/callback'));
  const record = profile.logs.find((r) => r.message.startsWith('Calling'))!;
  const target = String((record.context as Record<string, unknown>).target);
  assert.match(target, /^https:\/\/api\.example\/v1\/items\?access_token=\*\*\*&page=2$/);
});
