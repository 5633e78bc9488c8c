/**
 * The level a caller names, read as Monolog's Logger::toMonologLevel reads it: any case, or the level's
 * number; a name that is no level refused with Monolog's message. Plain JavaScript reaches
 * `request.logger.log(level, …)` with whatever it was given.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Logger, LogStream } from '../../src/log/logger.ts';
import type { LevelName } from '../../src/log/levels.ts';
import { HttpResponse as Res } from '../../src/index.ts';
import { get, profiledApp, profileOf, removeTempDirs, tempDir } from '../profiler/support.ts';

after(removeTempDirs);

test('regression: a level written as Monolog also accepts it (WARNING, 300) made a record without a level: kept out of the Logs panel, and the file store dropped the whole profile', async () => {
  const app = profiledApp({
    profilerDsn: `file:${tempDir()}`,
    routes: [
      {
        name: 'careful',
        path: '/careful',
        controller: (request) => {
          request.logger.log('WARNING' as LevelName, 'app', 'Stock is low');
          request.logger.log(400 as unknown as LevelName, 'app', 'Payment failed');
          return Res.html('<html><body>ok</body></html>');
        },
      },
    ],
  });
  const response = await get(app, '/careful');
  assert.equal(response.status, 200);
  await response.text();
  const profile = await profileOf(app, response);
  const kept = profile.logs.filter((r) => r.channel === 'app' && r.message !== '' && !r.message.startsWith('Login setup'));
  assert.deepEqual(kept.map((r) => [r.level, r.level_name, r.message]), [
    [300, 'WARNING', 'Stock is low'],
    [400, 'ERROR', 'Payment failed'],
  ]);
  const panel = await (await get(app, `/_profiler/${profile.token}?panel=logs&level=warning`)).text();
  assert.match(panel, /data-level="WARNING" data-channel="app"/);
  assert.match(panel, /data-level="ERROR" data-channel="app"/);
  assert.ok(app.logs.some((l) => l.includes('app.WARNING: Stock is low')), app.logs.join('\n'));
  assert.ok(app.logs.some((l) => l.includes('app.ERROR: Payment failed')), app.logs.join('\n'));
});

test('regression: a level name that is no level was written as one in debug mode (app.WARN) and dropped in production; Monolog refuses it', () => {
  for (const keep of [true, false]) {
    const lines: string[] = [];
    const logger = new Logger(new LogStream((l) => lines.push(l), 'warning', 'line'), keep, () => ({}));
    assert.throws(() => logger.log('warn' as LevelName, 'app', 'careful'), {
      message: 'Level "warn" is not defined, use one of: 100, 200, 250, 300, 400, 500, 550, 600, DEBUG, INFO, NOTICE, WARNING, ERROR, CRITICAL, ALERT, EMERGENCY',
    });
    // Names Object.prototype answers for are no levels either.
    assert.throws(() => logger.log('constructor' as LevelName, 'app', 'careful'), { message: /^Level "constructor" is not defined/ });
    assert.deepEqual(lines, []);
    assert.deepEqual(logger.records ?? [], []);
  }
});
