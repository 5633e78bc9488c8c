// createApp's adapter entry: what a host gets back from app.handle().
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, type AppOptions } from '../../src/app/create-app.ts';
import { HttpResponse } from '../../src/http/response.ts';
import { source } from '../support/request.ts';
import { listener, type Listener } from '../../src/kernel/hooks.ts';

const routes = [
  { name: 'now', path: '/now', methods: ['GET'], controller: () => HttpResponse.text('now') },
  { name: 'later', path: '/later', methods: ['GET'], controller: async () => HttpResponse.text('later') },
];

test('prod: a synchronous route is answered without a promise and with nothing to terminate', async () => {
  const app = createApp({ env: 'prod', debug: false, logSink: () => {}, routes });
  const now = app.handle(source({ target: '/now' }));
  assert.ok(!(now instanceof Promise));
  assert.equal(now.response.body, 'now');
  assert.equal(now.terminate, null);

  const later = app.handle(source({ target: '/later' }));
  assert.ok(later instanceof Promise);
  assert.equal((await later).response.body, 'later');

  const missing = app.handle(source({ target: '/missing' }));
  assert.ok(!(missing instanceof Promise), 'a 404 is synchronous too');
  assert.equal(missing.response.status, 404);
});

test('debug: kernel.terminate (profile storage) is handed to the host', async () => {
  const app = createApp({ env: 'dev', debug: true, logSink: () => {}, routes });
  const handled = await app.handle(source({ target: '/now' }));
  assert.equal(typeof handled.terminate, 'function');
  assert.match(handled.response.headers.get('x-debug-token') ?? '', /^[0-9a-f]{6}$/);
});

test('app.respond, like Hono\'s fetch: a Response for a synchronous answer, a promise of one otherwise', async () => {
  const app = createApp({ env: 'prod', debug: false, logSink: () => {}, routes });
  const now = app.respond(new Request('http://localhost/now'));
  assert.ok(now instanceof Response);
  assert.equal(await now.text(), 'now');
  assert.equal(now.headers.get('x-robots-tag'), 'noindex');
  const later = app.respond(new Request('http://localhost/later'));
  assert.ok(later instanceof Promise);
  assert.equal(await (await later).text(), 'later');
});

test('app.fetch: several Set-Cookie lines stay separate lines', async () => {
  const cookies = [{ name: 'cookies', path: '/cookies', methods: ['GET'], controller: () => {
    const response = HttpResponse.text('c');
    response.headers.setCookie('a', '1');
    response.headers.setCookie('b', '2');
    return response;
  } }];
  const app = createApp({ env: 'prod', debug: false, logSink: () => {}, routes: cookies });
  const response = await app.fetch(new Request('http://localhost/cookies'));
  assert.deepEqual(response.headers.getSetCookie().map((c) => c.split(';')[0]), ['a=1', 'b=2']);
});

test('routing failures: the routing exception carries the frames of the HTTP exception in debug, no stack in prod', async () => {
  for (const debug of [true, false]) {
    let thrown: (Error & { previous?: Error }) | null = null;
    const app = createApp({
      env: debug ? 'dev' : 'prod',
      debug,
      logSink: () => {},
      routes,
      listeners: [{ hook: 'kernel.exception', listener: listener<'kernel.exception'>('Test::capture', 'capture', (e) => void (thrown = e.throwable as Error)) as Listener, placement: { index: 0 } }],
    });
    await app.handle(source({ target: '/missing' }));
    const error = thrown as unknown as Error & { previous: Error };
    assert.equal(error.previous.constructor.name, 'ResourceNotFoundException');
    const [ownLine, ...frames] = (error.previous.stack ?? '').split('\n');
    assert.equal(ownLine, 'Error: No routes found for "/missing/".');
    if (debug) {
      assert.ok(frames.length > 0 && frames.every((f) => f.startsWith('    at ')), error.previous.stack);
      assert.deepEqual(frames, (error.stack ?? '').split('\n').slice(1));
    } else {
      assert.deepEqual(frames, []);
    }
  }
});

test('regression: app.fetch returned the Response itself for a synchronous request, so fetch(...).then threw; it is a Promise<Response> (CONTRACT §1)', async () => {
  const app = createApp({ env: 'prod', environment: {}, logSink: () => {}, routes: [{ name: 'ok', path: '/ok', controller: () => HttpResponse.text('ok') }] });
  for (const path of ['/ok', '/missing']) {
    const result = app.fetch(new Request(`http://localhost${path}`));
    assert.ok(result instanceof Promise, path);
    assert.equal((await result.then((r) => r.status)), path === '/ok' ? 200 : 404);
  }
  // respond: the same answer, without the promise when nothing was awaited.
  const direct = app.respond(new Request('http://localhost/ok'));
  assert.ok(direct instanceof Response);
  assert.equal(await direct.text(), 'ok');
  const detached = app.fetch;
  assert.ok(detached(new Request('http://localhost/ok')) instanceof Promise, 'bound');
});

test('regression: fetchSource, which the README names as the way from a Fetch Request to app.handle, was not exported', async () => {
  const lib = await import('../../src/index.ts');
  const app = lib.createApp({
    env: 'prod',
    logSink: () => {},
    routes: [{ name: 'member', path: '/members/:id', methods: ['GET'], controller: (r) => HttpResponse.json({ id: r.attributes.get('id'), page: r.query.get('page') }) }],
  });
  const handled = await app.handle(lib.fetchSource(new Request('http://example.test/members/7?page=2', { headers: { accept: 'application/json' } })));
  assert.equal(handled.response.status, 200);
  assert.deepEqual(JSON.parse(handled.response.bodyText() ?? ''), { id: '7', page: '2' });
});

test('regression: a typo inside options (requireLogin) left the route open; near misses of known options are refused', () => {
  const route = (options: Record<string, unknown>) => ({ name: 'private', path: '/private', controller: () => HttpResponse.text('secret'), options });
  for (const [key, meant] of [['requireLogin', 'requiresLogin'], ['isgranted', 'isGranted'], ['converter', 'converters'], ['Cache', 'cache']]) {
    assert.throws(() => createApp({ env: 'prod', logSink: () => {}, routes: [route({ [key!]: true })] }), { message: `Unknown option "${key}" in route "private": did you mean "${meant}"?` });
  }
  // The application's own options, far from the known ones, stay allowed for its listeners.
  const app = createApp({ env: 'prod', logSink: () => {}, routes: [route({ requiresLogin: true, auditTrail: 'orders', rateLimit: 10 })] });
  assert.deepEqual(Object.keys(app.router.get('private')!.options), ['requiresLogin', 'auditTrail', 'rateLimit']);
});

test('regression: a Sensio-style relative cache expires ("+1 day", "tomorrow") was dropped without a word; refused where the route is defined', () => {
  const route = (expires: unknown) => ({ name: 'cached', path: '/cached', controller: () => HttpResponse.text('x'), options: { cache: { expires: expires as never } } });
  for (const expires of ['+1 day', 'tomorrow']) {
    assert.throws(() => createApp({ env: 'prod', logSink: () => {}, routes: [route(expires)] }), { message: `The cache option "expires" of route "cached" is no date: ${JSON.stringify(expires)}. Give a Date, a timestamp or a date string; for a relative expiry use maxAge (seconds).` });
  }
  for (const expires of [new Date('2030-01-01T00:00:00Z'), 1893456000, 'Tue, 01 Jan 2030 00:00:00 GMT']) createApp({ env: 'prod', logSink: () => {}, routes: [route(expires)] });
});

test('regression: a listener for an unknown hook (kernel.responze) failed with "Cannot read properties of undefined"; it names the hook', () => {
  const listeners = [{ hook: 'kernel.responze', listener: { id: 'App::x', role: 'r', call: () => {} } }] as unknown as AppOptions['listeners'];
  assert.throws(() => createApp({ env: 'prod', logSink: () => {}, listeners }), /^Error: Unknown hook "kernel\.responze" for listener "App::x": the hooks are kernel\.request, /);
});

test('regression: app.fetch rejected when the kernel\'s response could not become a Fetch Response (a 1xx status); it answers the Node adapter\'s plain 500, logged', async () => {
  const lines: string[] = [];
  const app = createApp({
    env: 'prod',
    environment: {},
    logSink: (l) => lines.push(l),
    routes: [
      { name: 'read', path: '/read', controller: async () => { const r = new Response('x'); await r.text(); return r; } },
      { name: 'interim', path: '/interim', controller: () => new HttpResponse('x', 103) },
    ],
  });
  // A Fetch Response whose body was read is refused where it is returned: the kernel's own 500, logged as uncaught.
  const read = await app.fetch(new Request('http://localhost/read'));
  assert.equal(read.status, 500);
  assert.match(lines.join('\n'), /request\.CRITICAL: Uncaught Exception TypeError: "A Fetch Response whose body was already read or is locked cannot be answered/);
  for (const [path, method] of [['/interim', 'GET'], ['/interim', 'HEAD']] as const) {
    lines.length = 0;
    const response = await app.fetch(new Request(`http://localhost${path}`, { method }));
    assert.equal(response.status, 500, `${method} ${path}`);
    assert.equal(response.headers.get('content-type'), 'text/plain; charset=UTF-8');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(await response.text(), method === 'HEAD' ? '' : 'Internal Server Error');
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0]!, /app\.ERROR: Unhandled error while handling a request: (TypeError|RangeError): /);
  }
  // app.respond, the same answer without the promise.
  const direct = app.respond(new Request('http://localhost/interim'));
  assert.ok(direct instanceof Response);
  assert.equal(direct.status, 500);
});

test('regression: a placement next to the profiler built in dev and failed in production with "No listener … to insert next to." naming neither the listener nor the ids it could use', () => {
  const late = { id: 'App\\EventListener\\Late::onKernelResponse', role: 'late', call() {} };
  const build = (env: 'dev' | 'prod', before: string) => () => createApp({ env, environment: {}, logSink: () => {}, listeners: [{ hook: 'kernel.response', listener: late, placement: { before } }] });
  build('dev', 'ProfilerListener::onKernelResponse')();
  assert.throws(build('prod', 'ProfilerListener::onKernelResponse'), (error: Error) => {
    assert.match(error.message, /^No listener "ProfilerListener::onKernelResponse" to insert "App\\EventListener\\Late::onKernelResponse" next to; this hook has .*"ResponseListener::onKernelResponse"/);
    assert.match(error.message, /exist in debug mode only/);
    return true;
  });
  assert.throws(build('prod', 'ResponseListener::onResponse'), (error: Error) => {
    assert.match(error.message, /this hook has .*"ResponseListener::onKernelResponse"/);
    assert.doesNotMatch(error.message, /debug mode only/);
    return true;
  });
});
