/**
 * A record whose message is no string (plain JavaScript logging an error object, as PHP's PSR-3
 * loggers accept a Stringable) is still written and still profiled.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Logger, LogStream } from '../../src/log/logger.ts';
import { HttpResponse as Res } from '../../src/index.ts';
import { get, profiledApp, profileOf } from '../profiler/support.ts';

test('regression: a log record with an error object as its message is written, not dropped', () => {
  const lines: string[] = [];
  const logger = new Logger(new LogStream((l) => lines.push(l), 'debug', 'json'), false, () => ({}));
  logger.error('app', new Error('boom') as unknown as string, { password: 'hunter2' });
  assert.equal(lines.length, 1);
  const record = JSON.parse(lines[0]!);
  assert.equal(record.message, '[object Error]');
  assert.deepEqual(record.context, { password: '***' });
});

test('regression: a log record with an error object as its message does not cost the request its profile', async () => {
  const app = profiledApp({
    routes: [
      {
        name: 'logs_error',
        path: '/logs-error',
        controller: (request) => {
          request.logger.error('app', new Error('boom') as unknown as string);
          return Res.json({ ok: true });
        },
      },
    ],
  });
  const response = await get(app, '/logs-error');
  assert.equal(response.status, 200);
  const profile = await profileOf(app, response);
  assert.ok(profile.logs.some((r) => r.message === '[object Error]'), JSON.stringify(profile.logs.map((r) => r.message)));
  assert.ok(!app.logs.some((l) => l.includes('could not store profile')), app.logs.join('\n'));
});
