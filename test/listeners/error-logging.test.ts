import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BadRequestHttpException, ConflictHttpException, createApp, HttpResponse, listener, NotFoundHttpException, type App, type AppOptions, type FlattenException, type KernelRequest } from '../../src/index.ts';
import { loadConfig } from '../../src/app/config.ts';

/** Absolute path of a source file, as the log shows it (symfony-reference §5.1). */
const ROUTER_LISTENER = fileURLToPath(new URL('../../src/listeners/router-listener.ts', import.meta.url));
const REQUEST = fileURLToPath(new URL('../../src/http/request.ts', import.meta.url));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

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
  assert.match(record.message, new RegExp(`^Uncaught Exception NotFoundHttpException: "No route found for "GET http://localhost/robots\\.txt"" at ${escape(ROUTER_LISTENER)} line \\d+$`));
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
  assert.match(record.message, new RegExp(`NotFoundHttpException: "No route found for "GET http://localhost/robots\\.txt"" at ${escape(ROUTER_LISTENER)} line \\d+$`));
});

test('LOG_EXCLUDED_HTTP_CODES is validated', () => {
  assert.deepEqual(loadConfig({}, { APP_ENV: 'prod' }).logExcludedHttpCodes, [404, 405]);
  assert.deepEqual(loadConfig({}, {}).logExcludedHttpCodes, []);
  assert.deepEqual(loadConfig({}, { LOG_EXCLUDED_HTTP_CODES: '404, 403' }).logExcludedHttpCodes, [404, 403]);
  assert.throws(() => loadConfig({}, { LOG_EXCLUDED_HTTP_CODES: '4o4' }), /LOG_EXCLUDED_HTTP_CODES/);
});

test('regression: the "Uncaught Exception" message gave a relative file path while its context and X-Debug-Exception-File gave the absolute one', async () => {
  const { app, uncaught } = appWithLogs('dev');
  const response = await app.fetch(new Request('http://localhost/robots.txt'));
  const [record] = uncaught();
  const at = / at (\S+) line (\d+)$/.exec(record.message);
  assert.ok(at, record.message);
  const [, file, line] = at;
  assert.equal(file, ROUTER_LISTENER);
  // The same place in the message, the context and the response header.
  // LOG_FORMAT=json: JsonFormatter's exception object (CONTRACT §7).
  assert.equal(record.context.exception.class, 'NotFoundHttpException');
  assert.equal(record.context.exception.message, 'No route found for "GET http://localhost/robots.txt"');
  assert.equal(record.context.exception.file, `${file}:${line}`);
  assert.equal(decodeURIComponent(response.headers.get('x-debug-exception-file')!), `${file}:${line}`);
});

test('regression: the log context\'s exception string left out the previous exceptions (Invalid Host, 404)', async () => {
  for (const format of ['json', 'line'] as const) {
    const lines: string[] = [];
    const app = createApp({ env: 'dev', environment: { LOG_FORMAT: format }, logSink: (l) => lines.push(l), routes: [] });
    assert.equal((await app.fetch(new Request('http://localhost/x', { headers: { host: 'a b' } }))).status, 400);
    assert.equal((await app.fetch(new Request('http://localhost/nope'))).status, 404);
    const logged = lines.filter((l) => l.includes('Uncaught Exception'));
    assert.equal(logged.length, 2, lines.join('\n'));
    const contexts = logged.map((l) => (format === 'json' ? JSON.parse(l).context : JSON.parse(/ (\{"exception":.*\}) (?:\[\]|\{.*\})$/.exec(l)![1]!)));
    // json: JsonFormatter's object, its `previous` chain read back as the line format's lines.
    const chain = (e: any): string[] => {
      const out: string[] = [];
      for (let x = e; x && !Array.isArray(x); x = x.previous) out.push(`${out.length ? '[previous exception] ' : ''}[object] (${x.class}(code: ${x.code}): ${x.message} at ${x.file})`);
      return out;
    };
    const [badHost, notFound] = contexts.map((c) => (format === 'json' ? chain(c.exception) : String(c.exception).split('\n')));
    assert.equal(badHost!.length, 2, badHost!.join('\n'));
    assert.match(badHost![0]!, /^\[object\] \(BadRequestHttpException\(code: 0\): Invalid Host "a b"\. at \/.+:\d+\)$/);
    assert.equal(badHost![1]!.replace(/:\d+\)$/, ':N)'), `[previous exception] [object] (SuspiciousOperationException(code: 0): Invalid Host "a b". at ${REQUEST}:N)`);
    assert.equal(notFound!.length, 2, notFound!.join('\n'));
    assert.match(notFound![0]!, new RegExp(`^\\[object\\] \\(NotFoundHttpException\\(code: 0\\): No route found for "GET http://localhost/nope" at ${escape(ROUTER_LISTENER)}:\\d+\\)$`));
    assert.match(notFound![1]!, new RegExp(`^\\[previous exception\\] \\[object\\] \\(ResourceNotFoundException\\(code: 0\\): No routes found for "/nope/?"\\. at ${escape(ROUTER_LISTENER)}:\\d+\\)$`));
  }
});

test('regression: "Exception thrown when handling an exception" lacked the class, file and line, and was CRITICAL for an HTTP error below 500', async () => {
  const THIS_FILE = fileURLToPath(import.meta.url);
  const cases: [() => Error, string, string][] = [
    [() => new Error('renderer broke'), 'CRITICAL', 'Error: renderer broke'],
    [() => new BadRequestHttpException('bad render'), 'ERROR', 'BadRequestHttpException: bad render'],
  ];
  for (const [make, level, described] of cases) {
    const lines: string[] = [];
    const app = createApp({
      env: 'prod',
      environment: { LOG_FORMAT: 'json' },
      logSink: (l) => lines.push(l),
      routes: [{ name: 'boom', path: '/boom', controller: () => { throw new Error('kaput'); } }],
      listeners: [{ hook: 'kernel.exception', listener: listener<'kernel.exception'>('Test::breaks', 't', () => { throw make(); }), placement: { before: 'ErrorListener::onKernelException' } }],
    });
    assert.equal((await app.fetch(new Request('http://localhost/boom'))).status, 500);
    const records = lines.map((l) => JSON.parse(l) as { message: string; level_name: string; channel: string }).filter((r) => r.message.startsWith('Exception thrown when handling'));
    assert.equal(records.length, 1, lines.join('\n'));
    assert.equal(records[0]!.channel, 'request');
    assert.equal(records[0]!.level_name, level);
    assert.match(records[0]!.message, new RegExp(`^Exception thrown when handling an exception \\(${escape(described)} at ${escape(THIS_FILE)} line \\d+\\)$`));
  }
});

/** An app in each mode, its log discarded: what a controller receives is the same in both. */
function appsInBothModes(options: Pick<AppOptions, 'routes' | 'listeners'>): Array<[env: 'prod' | 'dev', app: App]> {
  return (['prod', 'dev'] as const).map((env) => [env, createApp({ env, environment: {}, logSink: () => {}, ...options })]);
}

test('regression: a route parameter or default named `exception` reached the controller as an Error made of it (ErrorListener::onControllerArguments leaves a non-Throwable alone)', async () => {
  for (const [env, app] of appsInBothModes({
    routes: [
      { name: 'report', path: '/reports/:exception', controller: (request) => HttpResponse.json({ exception: request.attributes.get('exception') }) },
      { name: 'latest', path: '/latest', defaults: { exception: 'none' }, controller: (request) => HttpResponse.json({ exception: request.attributes.get('exception') }) },
    ],
  })) {
    assert.deepEqual(await (await app.fetch(new Request('http://localhost/reports/TimeoutError'))).json(), { exception: 'TimeoutError' }, env);
    assert.deepEqual(await (await app.fetch(new Request('http://localhost/latest'))).json(), { exception: 'none' }, env);
  }
});

test('ErrorListener::onControllerArguments: an error controller given the request\'s exception receives its FlattenException, the chain as plain data', async () => {
  const cause = new Error('row locked');
  const conflict = new ConflictHttpException('Order 7 changed meanwhile', cause);
  for (const [env, app] of appsInBothModes({
    routes: [
      {
        name: 'error_controller',
        path: '/error',
        defaults: { exception: conflict },
        controller: ((_request: KernelRequest, flat: FlattenException) => HttpResponse.json({ class: flat.class, message: flat.message, status: flat.statusCode, text: flat.statusText, previous: flat.previous?.message, isError: (flat as unknown) instanceof Error })) as (request: KernelRequest) => HttpResponse,
      },
    ],
    listeners: [
      {
        hook: 'kernel.controller_arguments',
        // What Symfony's argument resolver does for an `$exception` parameter: the attribute as an argument.
        listener: listener<'kernel.controller_arguments'>('Test::exceptionArgument', 'pass the exception', (event) => event.setArguments([event.request, event.request.attributes.get('exception')])),
        placement: { before: 'ErrorListener::onControllerArguments' },
      },
    ],
  })) {
    const body = await (await app.fetch(new Request('http://localhost/error'))).json();
    assert.deepEqual(body, { class: 'ConflictHttpException', message: 'Order 7 changed meanwhile', status: 409, text: 'Conflict', previous: 'row locked', isError: false }, env);
  }
});

test('regression: with LOG_EXCLUDED_HTTP_CODES in debug mode, the excluded 404 was missing from the error page\'s Logs tab and the profile too, where Symfony\'s profiler still lists it', async () => {
  const { app, uncaught } = appWithLogs('dev', { LOG_EXCLUDED_HTTP_CODES: '404' });
  const response = await app.fetch(new Request('http://localhost/robots.txt'));
  assert.equal(response.status, 404);
  const page = await response.text();
  // Not written to the stream…
  assert.deepEqual(uncaught(), []);
  // …but kept for the page and the profile, at its level, on channel request.
  assert.match(page, /Uncaught Exception NotFoundHttpException: &quot;No route found for &quot;GET http:\/\/localhost\/robots\.txt&quot;&quot;/);
  const token = response.headers.get('x-debug-token');
  assert.ok(token);
  const logs = await (await app.fetch(new Request(`http://localhost/_profiler/${token}?panel=logs`))).text();
  assert.match(logs, /data-level="ERROR" data-channel="request"[^]*?Uncaught Exception NotFoundHttpException/);
  // A status that is not excluded is written as before.
  await app.fetch(new Request('http://localhost/boom'));
  assert.deepEqual(uncaught().map((r) => r.level_name), ['CRITICAL']);
});
