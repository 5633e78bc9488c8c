/**
 * Log output as Monolog 2 writes it (CONTRACT §7: `line` = LineFormatter, `json` = JsonFormatter):
 * exceptions in the json format, NormalizerFormatter's bounds and markers, PsrLogMessageProcessor's
 * placeholder values, Utils::jsonEncode's escaped line terminators.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatRecord } from '../../src/log/format.ts';
import { Logger, LogStream } from '../../src/log/logger.ts';
import { interpolate, type LogRecord } from '../../src/log/record.ts';
import { NotFoundHttpException, ResourceNotFoundException } from '../../src/kernel/exceptions.ts';
import { records, send, testApp } from '../pipeline/harness.ts';
import { longestKeyList } from '../support/key-lists.ts';

const THIS_FILE = fileURLToPath(import.meta.url);
const ROUTER_LISTENER = fileURLToPath(new URL('../../src/listeners/router-listener.ts', import.meta.url));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const CANARY = 'CANARY9d2';

function record(message: string, context: Record<string, unknown>): LogRecord {
  return { datetime: new Date('2026-01-02T03:04:05.678Z'), channel: 'app', level: 300, levelName: 'warning', message, context, extra: {} };
}

/** The context JSON of a line-format line (`… message {context} []`, no extra fields). */
function lineContext(line: string): Record<string, any> {
  return JSON.parse(/^\[[^\]]+\] app\.WARNING: \S+ (.*) \[\]$/s.exec(line)![1]!);
}

/** The context of a record in both formats, parsed back. */
function bothFormats(context: Record<string, unknown>): { line: Record<string, any>; json: Record<string, any> } {
  return {
    line: lineContext(formatRecord(record('ctx', context), 'line')),
    json: JSON.parse(formatRecord(record('ctx', context), 'json')).context,
  };
}

test('regression: LOG_FORMAT=json wrote an exception in context as LineFormatter\'s string instead of Monolog\'s JSON object', async () => {
  const lines: string[] = [];
  const logger = new Logger(new LogStream((l) => lines.push(l), 'debug', 'json'), false, () => ({}));
  const inner = new Error('disk gone');
  const middle = new ResourceNotFoundException('No routes found for "/x".', inner);
  logger.error('request', 'boom', { exception: new NotFoundHttpException('nope', middle) });
  const exception = JSON.parse(lines[0]!).context.exception;
  const at = new RegExp(`^${escape(THIS_FILE)}:\\d+$`);
  assert.deepEqual(Object.keys(exception), ['class', 'message', 'code', 'file', 'previous']);
  assert.equal(exception.class, 'NotFoundHttpException');
  assert.equal(exception.message, 'nope');
  assert.equal(exception.code, 0);
  assert.match(exception.file, at);
  assert.equal(exception.trace, undefined, 'JsonFormatter leaves the trace out by default');
  assert.deepEqual({ ...exception.previous, file: 'F', previous: { ...exception.previous.previous, file: 'F' } }, {
    class: 'ResourceNotFoundException',
    message: 'No routes found for "/x".',
    code: 0,
    file: 'F',
    previous: { class: 'Error', message: 'disk gone', code: 0, file: 'F' },
  });
  assert.match(exception.previous.file, at);
  assert.match(exception.previous.previous.file, at);

  // Bounded as the line format is, with Monolog's marker where the chain is cut; a cycle ends it.
  let deep: Error = new Error('e0');
  for (let i = 1; i <= 15; i++) deep = new Error(`e${i}`, { cause: deep });
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;
  logger.error('request', 'x', { deep, cyclic: b });
  const context = JSON.parse(lines[1]!).context;
  const messages: string[] = [];
  let node = context.deep;
  while (node && !Array.isArray(node)) {
    messages.push(node.message);
    node = node.previous;
  }
  assert.deepEqual(messages, ['e15', 'e14', 'e13', 'e12', 'e11', 'e10', 'e9', 'e8', 'e7', 'e6', 'e5']);
  assert.deepEqual(node, ['Over 10 levels deep, aborting normalization']);
  assert.equal(context.cyclic.message, 'b');
  assert.equal(context.cyclic.previous.message, 'a');
  assert.equal(context.cyclic.previous.previous, undefined);

  // Through the application: a 404 in the json format can be queried by `context.exception.class`.
  const app = testApp({ logFormat: 'json' });
  assert.equal((await send(app.app, '/nope')).status, 404);
  const uncaught = records(app.lines).find((r) => r.message.startsWith('Uncaught Exception'))!;
  const logged = uncaught.context.exception as Record<string, any>;
  assert.equal(logged.class, 'NotFoundHttpException');
  assert.equal(logged.message, 'No route found for "GET http://localhost/nope"');
  assert.match(logged.file, new RegExp(`^${escape(ROUTER_LISTENER)}:\\d+$`));
  assert.equal(logged.previous.class, 'ResourceNotFoundException');

  // The line format keeps LineFormatter's string.
  const line = lineContext(formatRecord(record('ctx', { exception: new NotFoundHttpException('nope') }), 'line'));
  assert.match(line.exception, /^\[object\] \(NotFoundHttpException\(code: 0\): nope at .+:\d+\)$/);
});

test('regression: context normalization cut arrays and objects at 200 entries and 8 levels without a marker (Monolog: 1000 items, 9 levels, with its abort texts)', () => {
  const bigArr = Array.from({ length: 5000 }, (_, i) => i);
  const bigObj = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
  const exactly = Array.from({ length: 1000 }, (_, i) => i);
  const medium = Array.from({ length: 300 }, (_, i) => i);
  const wide = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [i === 500 ? 'api_key' : `k${i}`, i === 500 ? CANARY : i]));
  let nested: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 20_000; i++) nested = { n: nested };
  let deepMasked: Record<string, unknown> = { password: CANARY };
  for (let i = 0; i < 6; i++) deepMasked = { d: deepMasked };

  for (const [format, context] of Object.entries(bothFormats({ bigArr, bigObj, exactly, medium, wide, nested, deepMasked }))) {
    // A cut array carries Monolog's "..." key, and so is written as an object, as PHP's json_encode does.
    assert.equal(Array.isArray(context.bigArr), false, format);
    assert.deepEqual(Object.keys(context.bigArr).length, 1001, format);
    assert.equal(context.bigArr['999'], 999, format);
    assert.equal(context.bigArr['1000'], undefined, format);
    assert.equal(context.bigArr['...'], 'Over 1000 items (5000 total), aborting normalization', format);
    assert.deepEqual(Object.keys(context.bigObj).length, 1001, format);
    assert.equal(context.bigObj.k999, 999, format);
    assert.equal(context.bigObj['...'], 'Over 1000 items (5000 total), aborting normalization', format);
    assert.deepEqual(context.exactly, exactly, `${format}: 1000 items are not cut`);
    assert.deepEqual(context.medium, medium, `${format}: no silent cut at 200`);
    assert.equal(context.wide.api_key, '***', `${format}: masking reaches past the old bound`);
    assert.equal(context.wide.k599, 599, format);

    // The record is depth 0 and its context depth 1 (Monolog normalizes the whole record): the value
    // at depth 10 is the marker.
    let expected: unknown = 'Over 9 levels deep, aborting normalization';
    for (let i = 0; i < 8; i++) expected = { n: expected };
    assert.deepEqual(context.nested, expected, format);
    assert.equal(JSON.stringify(context.deepMasked), '{"d":{"d":{"d":{"d":{"d":{"d":{"password":"***"}}}}}}}', format);
  }
  assert.ok(!formatRecord(record('ctx', { deepMasked }), 'line').includes(CANARY));
});

test('regression: PSR-3 placeholders printed booleans as true/false and left arrays and objects unreplaced (Monolog: "1"/"", array+JSON, [object Class])', () => {
  class Member {
    id = 7;
  }
  const context = {
    flag: false,
    on: true,
    nothing: null,
    list: [1, 2],
    obj: { a: 1, b: 'x/é' },
    bare: Object.assign(Object.create(null), { z: 1 }),
    map: new Map([['a', 1]]),
    member: new Member(),
    err: new NotFoundHttpException('nope'),
    inf: -Infinity,
    nan: NaN,
    fn: () => 1,
    undef: undefined,
  };
  assert.equal(
    interpolate('flag={flag} on={on} nothing={nothing} list={list} obj={obj} bare={bare} map={map} member={member} err={err} inf={inf} nan={nan} fn={fn} undef={undef} missing={missing}', context),
    'flag= on=1 nothing= list=array[1,2] obj=array{"a":1,"b":"x/é"} bare=array{"z":1} map=[object Map] member=[object Member] err=NotFoundHttpException: nope inf=-INF nan=NAN fn={fn} undef={undef} missing={missing}',
  );

  // Secrets stay hidden: a secret-named placeholder, secret fields inside an array, credentials in strings.
  const secrets = { password: CANARY, payload: { user: 'ada', token: CANARY, nested: [{ api_key: CANARY }] }, header: ['Bearer ' + CANARY], link: `https://x.test/?token=${CANARY}&p=2` };
  const masked = interpolate('{password} {payload} {header} {link}', secrets);
  assert.equal(masked, '*** array{"user":"ada","token":"***","nested":[{"api_key":"***"}]} array["Bearer ***"] https://x.test/?token=***&p=2');

  // An array prints with the log stream's bounds and markers.
  assert.match(interpolate('{big}', { big: Array.from({ length: 1001 }, () => 0) }), /^array\{"0":0,.*"999":0,"\.\.\.":"Over 1000 items \(1001 total\), aborting normalization"\}$/);

  // As the log stream writes it, in both formats.
  for (const format of ['line', 'json'] as const) {
    const line = formatRecord(record('flag={flag} on={on} list={list} obj={obj} password={password}', { flag: false, on: true, list: [1, 2], obj: { a: 1 }, password: CANARY }), format);
    const message = format === 'json' ? JSON.parse(line).message : /app\.WARNING: (.*?) \{/.exec(line)![1];
    assert.equal(message, 'flag= on=1 list=array[1,2] obj=array{"a":1} password=***', format);
    assert.ok(!line.includes(CANARY), format);
  }
});

test('regression: U+2028/U+2029 in a context were written raw, so a log viewer could split one record over several lines', () => {
  const context = { ls: 'a\u2028b', ps: 'c\u2029d', list: ['\u2028'] };
  for (const format of ['line', 'json'] as const) {
    const line = formatRecord({ ...record('ctx {ls}', context), extra: { note: 'e\u2028f' } }, format);
    const json = format === 'json' ? line : line.slice(line.indexOf(' {'));
    assert.doesNotMatch(json, /[\u2028\u2029]/, format);
    assert.ok(json.includes('"ls":"a\\u2028b"') && json.includes('"ps":"c\\u2029d"') && json.includes('"note":"e\\u2028f"'), `${format}: ${json}`);
    if (format === 'json') {
      const parsed = JSON.parse(line);
      assert.deepEqual(parsed.context, context, 'the JSON reads back as what was logged');
      assert.equal(parsed.message, 'ctx a\u2028b');
    } else {
      // The line format's message takes U+2028 for the line break it is: a space, as CR/LF.
      assert.match(line, /app\.WARNING: ctx a b \{/);
      assert.deepEqual(lineContext(line.replace(/ \{"note":.*\}$/, ' []').replace('ctx a b', 'ctx')), context);
    }
  }
});

test('a context whose getters or Proxy traps throw still gives its log line, in both formats', () => {
  const getter = { ok: 'fine' };
  Object.defineProperty(getter, 'bad', { enumerable: true, get() { throw new Error('no read'); } });
  const hostile = new Proxy({}, { ownKeys() { throw new Error('trap!'); }, getOwnPropertyDescriptor() { throw new Error('trap!'); } });
  for (const format of ['line', 'json'] as const) {
    const lines: string[] = [];
    const logger = new Logger(new LogStream((l) => lines.push(l), 'debug', format), false, () => ({}));
    logger.warning('app', 'ok={ok} bad={bad}', getter);
    logger.warning('app', 'hostile {x}', hostile as Record<string, unknown>);
    assert.equal(lines.length, 2, format);
    const [first, second] = format === 'json' ? lines.map((l) => JSON.parse(l)) : lines.map((l) => {
      const [, message, context] = /WARNING: (.*) ("\[unreadable[^"]*"|\{.*\}) \[\]$/.exec(l)!;
      return { message, context: JSON.parse(context!) };
    });
    assert.equal(first.message, 'ok=fine bad=[unreadable: no read]', format);
    assert.deepEqual(first.context, { ok: 'fine', bad: '[unreadable: no read]' }, format);
    assert.equal(second.message, 'hostile [unreadable: trap!]', format);
    assert.equal(second.context, '[unreadable: trap!]', format);
  }
});

test('regression: a Buffer in a log context blocked the event loop listing every byte, though 1000 are written', async () => {
  const body = Buffer.alloc(256 * 1024, 7);
  // Counted, not timed: listing the keys of a 1 MB body made a million strings (half a second per
  // record); the longest key list made while formatting must be about the thousand items written.
  const { result: line, longest } = await longestKeyList(() => formatRecord(record('body', { body, small: new Uint8Array([1, 2, 3]) }), 'json'));
  assert.ok(longest <= 1001, `a list of ${longest} keys`);
  const { context } = JSON.parse(line);
  assert.deepEqual(context.small, { 0: 1, 1: 2, 2: 3 });
  assert.equal(Object.keys(context.body).length, 1001);
  assert.equal(context.body['999'], 7);
  assert.equal(context.body['...'], `Over 1000 items (${body.length} total), aborting normalization`);
});

test('regression: NaN and Infinity in a log context were written as null, where Monolog writes NaN, INF and -INF', () => {
  for (const format of ['line', 'json'] as const) {
    const line = formatRecord(record('ratio {list}', { ratio: 0 / 0, up: Infinity, down: -Infinity, list: [NaN, 1.5], n: 0 }), format);
    const json = format === 'json' ? line : line.slice(line.indexOf(' {') + 1, line.lastIndexOf(' ['));
    const context = format === 'json' ? JSON.parse(json).context : JSON.parse(json);
    assert.deepEqual(context, { ratio: 'NaN', up: 'INF', down: '-INF', list: ['NaN', 1.5], n: 0 }, format);
    const message = format === 'json' ? JSON.parse(line).message : line;
    assert.match(message, /ratio array\["NaN",1\.5\]/, format);
  }
});

test('regression: a placeholder whose key has a character outside [A-Za-z0-9_.] (`{user-id}`, `{order id}`) was left as written; Monolog fills any context key', () => {
  const context = { 'user-id': 7, 'order id': 'A-1', '': 'empty key', 'a:b': true, 'api-token': CANARY };
  assert.equal(interpolate('{user-id} {order id} {} {a:b} {api-token}', context), `7 A-1 empty key 1 ***`);
  // Keys with a brace cannot be told from the text around them; unknown keys stay as written.
  assert.equal(interpolate('{{user-id}} {missing-key} {open', context), '{7} {missing-key} {open');
  // Many unclosed braces are read in linear time and stay as they are.
  const unclosed = '{'.repeat(50_000) + 'x';
  assert.equal(interpolate(unclosed, context), unclosed);
});
