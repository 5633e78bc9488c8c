import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatRecord } from '../../src/log/format.ts';
import { Logger, LogStream, MAX_RECORDS_PER_REQUEST } from '../../src/log/logger.ts';
import { interpolate } from '../../src/log/record.ts';
import { NotFoundHttpException } from '../../src/kernel/exceptions.ts';

const extra = () => ({ url: '/x', http_method: 'GET', request_id: 'abc-1' });

test('json lines have Monolog\'s shape with url, http_method and request_id in extra', () => {
  const lines: string[] = [];
  const logger = new Logger(new LogStream((l) => lines.push(l), 'debug', 'json'), false, extra);
  logger.info('request', 'Matched route "{route}".', { route: '_profiler' });
  const record = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(record), ['message', 'context', 'level', 'level_name', 'channel', 'datetime', 'extra']);
  assert.equal(record.message, 'Matched route "_profiler".');
  assert.deepEqual(record.context, { route: '_profiler' });
  assert.equal(record.level, 200);
  assert.equal(record.level_name, 'INFO');
  assert.equal(record.channel, 'request');
  assert.match(record.datetime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  assert.deepEqual(record.extra, { url: '/x', http_method: 'GET', request_id: 'abc-1' });
});

test('line format reads like Monolog\'s LineFormatter', () => {
  const line = formatRecord({ datetime: new Date('2026-01-02T03:04:05.678Z'), channel: 'app', level: 300, levelName: 'warning', message: 'Careful {who}', context: { who: 'you' }, extra: {} }, 'line');
  assert.equal(line, '[2026-01-02T03:04:05.678000+00:00] app.WARNING: Careful you {"who":"you"} []');
});

test('records below LOG_LEVEL are not written, but debug mode keeps them for the request', () => {
  const lines: string[] = [];
  const logger = new Logger(new LogStream((l) => lines.push(l), 'warning', 'line'), true, extra);
  logger.info('app', 'quiet');
  logger.error('app', 'loud');
  assert.equal(lines.length, 1);
  assert.deepEqual(logger.records!.map((r) => r.message), ['quiet', 'loud']);
});

test('the per-request record buffer is bounded', () => {
  const logger = new Logger(new LogStream(() => {}, 'emergency', 'line'), true, extra);
  for (let i = 0; i < MAX_RECORDS_PER_REQUEST + 10; i++) logger.info('app', 'x');
  assert.equal(logger.records!.length, MAX_RECORDS_PER_REQUEST);
  assert.equal(logger.droppedRecords, 10);
});

test('errors in context are written as Monolog [object] strings; cycles do not break', () => {
  const lines: string[] = [];
  const logger = new Logger(new LogStream((l) => lines.push(l), 'debug', 'json'), false, extra);
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  logger.error('request', 'boom', { exception: new NotFoundHttpException('nope'), cyclic });
  const record = JSON.parse(lines[0]);
  assert.match(record.context.exception, /^\[object\] \(NotFoundHttpException\(code: 0\): nope at .+:\d+\)$/);
  assert.equal(record.context.cyclic.self, '[...]');
});

test('a failing sink never breaks the caller', () => {
  const logger = new Logger(new LogStream(() => { throw new Error('disk full'); }, 'debug', 'line'), false, extra);
  assert.doesNotThrow(() => logger.critical('app', 'x'));
});

test('PSR-3 interpolation fills scalars only', () => {
  assert.equal(interpolate('{a} {b} {c} {missing}', { a: 1, b: 'two', c: { no: 1 } }), '1 two {c} {missing}');
});
