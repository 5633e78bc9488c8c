import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatRecord, MAX_PREVIOUS_EXCEPTIONS } from '../../src/log/format.ts';
import { Logger, LogStream, MAX_PENDING_SINK_WRITES, MAX_RECORDS_PER_REQUEST, stderrSink } from '../../src/log/logger.ts';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { interpolate } from '../../src/log/record.ts';
import { NotFoundHttpException, ResourceNotFoundException } from '../../src/kernel/exceptions.ts';

const extra = () => ({ url: '/x', http_method: 'GET', request_id: 'abc-1' });

/** A line-format logger without extra fields, and the context JSON of its lines (`… msg {context} []`). */
function lineLogger(): { logger: Logger; context: (i: number) => Record<string, any> } {
  const lines: string[] = [];
  const logger = new Logger(new LogStream((l) => lines.push(l), 'debug', 'line'), false, () => ({}));
  return { logger, context: (i) => JSON.parse(/^\[[^\]]+\] \w+\.\w+: \S+ (.*) \[\]$/s.exec(lines[i]!)![1]!) };
}

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

test('errors in context are written as Monolog [object] strings in the line format; cycles do not break', () => {
  const { logger, context } = lineLogger();
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  logger.error('request', 'boom', { exception: new NotFoundHttpException('nope'), cyclic });
  assert.match(context(0).exception, /^\[object\] \(NotFoundHttpException\(code: 0\): nope at .+:\d+\)$/);
  assert.equal(context(0).cyclic.self, '[...]');
});

test('a failing sink never breaks the caller', () => {
  const logger = new Logger(new LogStream(() => { throw new Error('disk full'); }, 'debug', 'line'), false, extra);
  assert.doesNotThrow(() => logger.critical('app', 'x'));
});

test('PSR-3 interpolation fills what the context has; a missing key stays as written', () => {
  assert.equal(interpolate('{a} {b} {c} {missing} {constructor}', { a: 1, b: 'two', c: { no: 1 } }), '1 two array{"no":1} {missing} {constructor}');
});

test('regression: query-string secrets were written to the log stream unmasked (extra.url), in line and json formats', () => {
  for (const format of ['json', 'line'] as const) {
    const lines: string[] = [];
    const logger = new Logger(new LogStream((l) => lines.push(l), 'debug', format), false, () => ({ url: '/echo?q=1&token=qtok&password=qpw', http_method: 'POST', request_id: 'r-1' }));
    logger.info('app', 'one');
    logger.debug('event', 'two');
    assert.equal(lines.length, 2);
    for (const line of lines) {
      assert.ok(!line.includes('qtok') && !line.includes('qpw'), line);
      const extra = format === 'json' ? JSON.parse(line).extra : JSON.parse(/ (\{[^{}]*\})$/.exec(line)![1]!);
      // Only the secret values change: same keys, same order, the rest of the URL as it was.
      assert.deepEqual(extra, { url: '/echo?q=1&token=***&password=***', http_method: 'POST', request_id: 'r-1' });
    }
  }
});

test('a URL without query parameters is logged as it is, the extra fields passed through without a copy', () => {
  const lines: string[] = [];
  const fields = { url: '/members/7', http_method: 'GET', request_id: 'r-2' };
  const logger = new Logger(new LogStream((l) => lines.push(l), 'debug', 'json'), true, () => fields);
  logger.info('app', 'x');
  assert.equal(logger.records![0]!.extra, fields);
  assert.deepEqual(JSON.parse(lines[0]!).extra, fields);
  const other = new Logger(new LogStream(() => {}, 'debug', 'json'), true, () => ({ url: '/s?q=1&page=2' }));
  other.info('app', 'x');
  assert.deepEqual(other.records![0]!.extra, { url: '/s?q=1&page=2' });
});

test('regression: previous exceptions were missing from the log context\'s exception string', () => {
  const { logger, context } = lineLogger();
  const inner = new Error('disk gone');
  const middle = new ResourceNotFoundException('No routes found for "/x".', inner);
  logger.error('request', 'boom', { exception: new NotFoundHttpException('nope', middle) });
  const parts = context(0).exception.split('\n');
  assert.equal(parts.length, 3);
  assert.match(parts[0], /^\[object\] \(NotFoundHttpException\(code: 0\): nope at \/.+\/test\/log\/logger\.test\.ts:\d+\)$/);
  assert.match(parts[1], /^\[previous exception\] \[object\] \(ResourceNotFoundException\(code: 0\): No routes found for "\/x"\. at \/.+\/test\/log\/logger\.test\.ts:\d+\)$/);
  assert.match(parts[2], /^\[previous exception\] \[object\] \(Error\(code: 0\): disk gone at \/.+\/test\/log\/logger\.test\.ts:\d+\)$/);
});

test('the previous-exception chain in a log context is bounded and cycle-safe', () => {
  const { logger, context: contextOf } = lineLogger();
  let deep: Error = new Error('e0');
  for (let i = 1; i <= 15; i++) deep = new Error(`e${i}`, { cause: deep });
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;
  const hostile = new Error('hostile');
  Object.defineProperty(hostile, 'cause', { get() { throw new Error('no'); } });
  logger.error('request', 'x', { deep, cyclic: b, hostile, plain: new Error('p', { cause: 'a string' }) });
  const context = contextOf(0);
  const deepParts = context.deep.split('\n');
  assert.equal(deepParts.length, 1 + MAX_PREVIOUS_EXCEPTIONS + 1);
  assert.match(deepParts[MAX_PREVIOUS_EXCEPTIONS], /\(Error\(code: 0\): e5 at /);
  assert.equal(deepParts.at(-1), `[previous exception] Over ${MAX_PREVIOUS_EXCEPTIONS} levels deep, aborting normalization`);
  assert.deepEqual(context.cyclic.split('\n').map((l: string) => /\): (\w+) at /.exec(l)![1]), ['b', 'a']);
  assert.equal(context.hostile.split('\n').length, 1);
  assert.equal(context.plain.split('\n').length, 1);
});

test('regression: with a stalled stderr pipe the log stream queued lines without limit; past the bound they are dropped and counted once it drains', async () => {
  // A pipe whose reader stopped: nothing written is acknowledged until `release`.
  const received: string[] = [];
  let stalled = true;
  const held: (() => void)[] = [];
  const pipe = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk.toString());
      if (stalled) held.push(done);
      else done();
    },
  });
  const limit = 1024;
  const stream = new LogStream(stderrSink(pipe, limit), 'debug', 'line');
  const logger = new Logger(stream, false, () => ({}));
  for (let i = 0; i < 100; i++) logger.error('request', `line ${i} ${'x'.repeat(80)}`);
  assert.ok(pipe.writableLength <= limit + 200, `${pipe.writableLength} bytes queued with a bound of ${limit}`);

  const drained = once(pipe, 'drain');
  stalled = false;
  held.splice(0).forEach((done) => done());
  await drained;
  await new Promise<void>((resolve) => setImmediate(resolve));
  const kept = received.filter((l) => l.includes('] request.ERROR: line '));
  // Each line is over 80 bytes: what was taken in is about the bound's worth, not all 100.
  assert.ok(kept.length <= limit / 80 + 1, `${kept.length} lines taken in`);
  assert.deepEqual(received.slice(kept.length), [`irms-web: ${100 - kept.length} log lines dropped (stderr not keeping up)\n`]);
  // Once drained, lines go through again.
  logger.error('request', 'after the drain');
  assert.match(received.at(-1)!, /request\.ERROR: after the drain/);
});

test('regression: a logSink written as an async function gave one unhandled rejection per line when it rejected', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const logger = new Logger(new LogStream(async () => { throw new Error('collector down'); }, 'debug', 'line'), false, extra);
    for (let i = 0; i < 10; i++) logger.error('request', 'lost');
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('regression: an async logSink that never settled had its calls pile up without bound; past MAX_PENDING_SINK_WRITES lines are dropped and counted', async () => {
  const lines: string[] = [];
  const settle: (() => void)[] = [];
  const sink = (line: string) => new Promise<void>((resolve) => {
    lines.push(line);
    settle.push(resolve);
  });
  const logger = new Logger(new LogStream(sink, 'debug', 'line'), false, () => ({}));
  for (let i = 0; i < MAX_PENDING_SINK_WRITES + 76; i++) logger.warning('app', `slow ${i}`);
  assert.equal(lines.length, MAX_PENDING_SINK_WRITES);
  settle.splice(0).forEach((resolve) => resolve());
  await new Promise<void>((resolve) => setImmediate(resolve));
  logger.warning('app', 'after');
  assert.match(lines.at(-2)!, /app\.WARNING: 76 log lines dropped \(the log sink was not keeping up\)/);
  assert.match(lines.at(-1)!, /app\.WARNING: after/);
});

test('past the per-request bound, a WARNING or worse takes the place of the oldest lesser record', () => {
  const logger = new Logger(new LogStream(() => {}, 'emergency', 'line'), true, extra);
  logger.warning('app', 'first warning');
  for (let i = 0; i < MAX_RECORDS_PER_REQUEST; i++) logger.info('app', `info ${i}`);
  logger.error('app', 'late error');
  const messages = logger.records!.map((r) => r.message);
  assert.equal(messages.length, MAX_RECORDS_PER_REQUEST);
  assert.deepEqual([messages[0], messages[1], messages.at(-1)], ['first warning', 'info 1', 'late error'], 'info 0 made room, in order');
  assert.equal(logger.droppedRecords, 2);
});
