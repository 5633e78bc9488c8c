import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, LogStream } from '../../src/log/logger.ts';
import type { LogFormat } from '../../src/log/format.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('regression: a stderr pipe whose reader went away (EPIPE) crashed the server with an uncaught exception at the next log line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'irms-epipe-'));
  try {
    // An app with the default log sink (stderr) serving requests, as serve() would, after its log reader has left.
    const script = join(dir, 'app.mts');
    writeFileSync(script, `
      import { createApp, HttpResponse } from ${JSON.stringify(join(root, 'src/index.ts'))};
      const app = createApp({ debug: false, logLevel: 'debug', routes: [{ name: 'home', path: '/', controller: () => HttpResponse.text('ok') }] });
      await new Promise((resolve) => setTimeout(resolve, 200));
      let served = 0;
      for (let i = 0; i < 30; i++) {
        const response = await app.fetch(new Request('http://localhost/'));
        if (response.status === 200) served++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      process.stdout.write('served ' + served + '\\n');
    `);
    // Without the test runner's NODE_TEST_CONTEXT, which would make the child report to it as a test file.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader of the child's stderr goes away: its writes fail with EPIPE.
    child.stderr.destroy();
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(out, 'served 30\n');
    assert.equal(code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A logger writing `format` lines without extra fields, and the context of its line `i` as parsed JSON. */
function logger(format: LogFormat): { log: Logger; context: (i: number) => any; lines: string[] } {
  const lines: string[] = [];
  const log = new Logger(new LogStream((l) => lines.push(l), 'debug', format), false, () => ({}));
  const context = (i: number) =>
    format === 'json' ? JSON.parse(lines[i]!).context : JSON.parse(/^\[[^\]]+\] \w+\.\w+: .*? (\{.*\}) \[\]$/s.exec(lines[i]!)![1]!);
  return { log, context, lines };
}

test('regression: a URL, a Map or a Set in a log context was written {} to the log stream (the profile showed their contents)', () => {
  for (const format of ['line', 'json'] as const) {
    const { log, context } = logger(format);
    const big = new Set(Array.from({ length: 1005 }, (_, i) => i));
    log.info('app', 'Calling upstream', {
      target: new URL('https://api.example/v1/items?access_token=s3cr3t-value&page=2'),
      options: new Map<unknown, unknown>([['retries', 3], ['password', 'hunter2'], [7, 'seven']]),
      tags: new Set(['a', 'b']),
      big,
    });
    const ctx = context(0);
    assert.equal(ctx.target, 'https://api.example/v1/items?access_token=***&page=2', format);
    assert.deepEqual(ctx.options, { retries: 3, password: '***', 7: 'seven' }, format);
    assert.deepEqual(ctx.tags, ['a', 'b'], format);
    assert.equal(Object.keys(ctx.big).length, 1001, format);
    assert.equal(ctx.big['999'], 999, format);
    assert.equal(ctx.big['...'], 'Over 1000 items (1005 total), aborting normalization', format);
  }
});

test('regression: a URL in a placeholder printed [object URL]; it prints its text, secrets masked', () => {
  const { log, lines } = logger('line');
  log.info('app', 'Calling {target}', { target: new URL('https://api.example/items?token=abc123&page=2') });
  assert.match(lines[0]!, /app\.INFO: Calling https:\/\/api\.example\/items\?token=\*\*\*&page=2 \{/);
});

test('regression: one context field whose Proxy trap throws on instanceof replaced the whole context by "[unreadable: …]"', () => {
  for (const format of ['line', 'json'] as const) {
    const { log, context } = logger(format);
    const hostile = new Proxy({}, { getPrototypeOf() { throw new Error('no prototype'); } });
    log.info('app', 'Order {order} failed', { order: 42, payload: hostile, reason: 'card declined' });
    assert.deepEqual(context(0), { order: 42, payload: '[unreadable: no prototype]', reason: 'card declined' }, format);
  }
});

test('regression: a Date in a log context was written as JavaScript\'s ISO string (2026-11-24T09:44:33.123Z) where Monolog\'s NormalizerFormatter writes Y-m-d\\TH:i:sP', () => {
  for (const format of ['line', 'json'] as const) {
    const { log, context } = logger(format);
    log.info('app', 'Scheduled', { at: new Date(Date.UTC(2026, 10, 24, 9, 44, 33, 123)), nested: { epoch: new Date(0) }, bad: new Date(Number.NaN) });
    const ctx = context(0);
    assert.equal(ctx.at, '2026-11-24T09:44:33+00:00', format);
    assert.equal(ctx.nested.epoch, '1970-01-01T00:00:00+00:00', format);
    assert.equal(ctx.bad, 'Invalid Date', format);
  }
});

test('regression: a class instance in a log context was written as a plain object, where Monolog\'s NormalizerFormatter writes {"Class": its data}', () => {
  class Order {
    constructor(readonly id: number, readonly password: string) {}
  }
  for (const format of ['line', 'json'] as const) {
    const { log, context } = logger(format);
    log.info('app', 'Order placed', { order: new Order(7, 'hunter2'), plain: { id: 7 }, bare: Object.assign(Object.create(null), { id: 7 }) });
    const ctx = context(0);
    assert.deepEqual(ctx.order, { Order: { id: 7, password: '***' } }, format);
    assert.deepEqual(ctx.plain, { id: 7 }, `${format}: a plain object is PHP's array, not wrapped`);
    assert.deepEqual({ ...ctx.bare }, { id: 7 }, format);
  }
});
