import assert from 'node:assert/strict';
import vm from 'node:vm';
import { test } from 'node:test';
import { HttpKernel } from '../../src/kernel/kernel.ts';
import { emptyHookTable, insertListener, listener, type HookTable } from '../../src/kernel/hooks.ts';
import { KernelRequest } from '../../src/http/request.ts';
import { HttpResponse } from '../../src/http/response.ts';
import { fetchSource } from '../../src/http/source.ts';
import { IpMatcher } from '../../src/http/ip.ts';
import { LogStream } from '../../src/log/logger.ts';
import { BadRequestHttpException, HttpException, MethodNotAllowedHttpException, NonErrorThrown, SuspiciousOperationException } from '../../src/kernel/exceptions.ts';
import { createApp, type AnyListenerRegistration, type AppOptions } from '../../src/app/create-app.ts';
import type { RouteDefinition } from '../../src/routing/route.ts';

function makeRequest(debug = true, lines: string[] = [], logStream = new LogStream((l) => lines.push(l), 'debug', 'json')): KernelRequest {
  return new KernelRequest(fetchSource(new Request('http://localhost/x')), {
    trustedProxies: new IpMatcher([]),
    trustedHosts: [],
    bodyLimit: 1024,
    httpMethodOverride: true,
    defaultLocale: 'en',
    logStream,
    debug,
  });
}

function withController(table: HookTable, controller: (r: KernelRequest) => unknown): HookTable {
  table['kernel.request'].push(listener('Test::route', 'routing', (e) => void e.request.attributes.set('_controller', controller)));
  return table;
}

function errorToResponse(table: HookTable): HookTable {
  table['kernel.exception'].push(
    listener('Test::render', 'error rendering', (e) => {
      const err = e.throwable as Error & { statusCode?: number; previous?: unknown };
      e.setResponse(new HttpResponse(`${err.constructor.name}|${err.message}|${(err.previous as Error | undefined)?.constructor.name ?? ''}`, 200));
    }),
  );
  return table;
}

test('hooks run in the order request → controller → arguments → controller call → response → finish', async () => {
  const calls: string[] = [];
  const t = emptyHookTable();
  t['kernel.request'].push(listener('A::req', 'r', (e) => { calls.push('request'); e.request.attributes.set('_controller', () => { calls.push('controller call'); return HttpResponse.text('ok'); }); }));
  t['kernel.controller'].push(listener('A::ctl', 'c', () => void calls.push('controller')));
  t['kernel.controller_arguments'].push(listener('A::args', 'a', () => void calls.push('arguments')));
  t['kernel.view'].push(listener('A::view', 'v', () => void calls.push('view')));
  t['kernel.response'].push(listener('A::resp', 'r', () => void calls.push('response')));
  t['kernel.finish_request'].push(listener('A::fin', 'f', () => void calls.push('finish')));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.body, 'ok');
  assert.deepEqual(calls, ['request', 'controller', 'arguments', 'controller call', 'response', 'finish']);
});

test('a response set in kernel.request stops the remaining request listeners and skips the controller', async () => {
  const calls: string[] = [];
  const t = emptyHookTable();
  t['kernel.request'].push(listener('A::early', 'r', (e) => e.setResponse(HttpResponse.text('early'))));
  t['kernel.request'].push(listener('A::late', 'r', () => void calls.push('late')));
  t['kernel.controller'].push(listener('A::ctl', 'c', () => void calls.push('controller')));
  t['kernel.response'].push(listener('A::resp', 'r', () => void calls.push('response')));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.body, 'early');
  assert.deepEqual(calls, ['response']);
});

test('a controller result that is not a response goes through kernel.view', async () => {
  const t = withController(emptyHookTable(), () => ({ n: 1 }));
  t['kernel.view'].push(listener('V::render', 'v', (e) => e.setResponse(HttpResponse.json(e.controllerResult))));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.body, '{"n":1}');
});

test('regression: ViewEvent had no setControllerResult, so a view listener ported from Symfony that wraps the data for the next one threw', async () => {
  const t = errorToResponse(withController(emptyHookTable(), () => ({ n: 1 })));
  t['kernel.view'].push(listener('V::wrap', 'v', (e) => e.setControllerResult({ data: e.controllerResult })));
  t['kernel.view'].push(listener('V::render', 'v', (e) => e.setResponse(HttpResponse.json(e.controllerResult))));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.body, '{"data":{"n":1}}');
  // Without a response, the error still names what the controller returned (HttpKernel::handleRaw's $response).
  const unanswered = errorToResponse(withController(emptyHookTable(), () => 'text'));
  unanswered['kernel.view'].push(listener('V::wrap', 'v', (e) => e.setControllerResult(42)));
  const error = await new HttpKernel(unanswered, false).handle(makeRequest(false));
  assert.match(String(error.body), /it returned a string \("text"\)/);
});

test('a controller that returns nothing is a 500 with Symfony\'s hint', async () => {
  const t = errorToResponse(withController(emptyHookTable(), () => undefined));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 500);
  assert.match(String(response.body), /must return a "Response" object but it returned undefined\. Did you forget to add a return statement/);
});

test('a Fetch Response from a controller is accepted and its body stays a stream', async () => {
  const t = withController(emptyHookTable(), () => new Response('fetch body', { status: 201, headers: { 'x-a': '1' } }));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 201);
  assert.equal(response.headers.get('x-a'), '1');
  assert.ok(response.isStreamed);
  assert.equal(await new Response(response.body as ReadableStream).text(), 'fetch body');
});

test('request errors become BadRequestHttpException with the same message and the original as previous', async () => {
  const t = errorToResponse(withController(emptyHookTable(), () => { throw new SuspiciousOperationException('Invalid Host "a b".'); }));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 400, 'an error response keeps the exception status');
  assert.equal(response.body, 'BadRequestHttpException|Invalid Host "a b".|SuspiciousOperationException');
});

test('HTTP exceptions give their status and headers to a 2xx error response', async () => {
  const t = errorToResponse(withController(emptyHookTable(), () => { throw new MethodNotAllowedHttpException(['GET', 'post'], 'no'); }));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 405);
  assert.equal(response.headers.get('allow'), 'GET, POST');
});

test('a thrown string is wrapped, never lost', async () => {
  const t = errorToResponse(withController(emptyHookTable(), () => { throw 'plain string'; }));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 500);
  assert.equal(response.body, 'NonErrorThrown|plain string|');
  assert.equal(new NonErrorThrown({ a: 1 }).message, 'Non-error value thrown: {"a":1}');
});

test('when the exception hook itself throws, the client still gets a minimal 500', async () => {
  const t = withController(emptyHookTable(), () => { throw new Error('first'); });
  t['kernel.exception'].push(listener('Broken::render', 'r', () => { throw new Error('renderer broke'); }));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 500);
  assert.equal(response.body, 'Internal Server Error\n');
});

test('when no exception listener answers, a minimal response with the HTTP status is produced', async () => {
  const t = withController(emptyHookTable(), () => { throw new BadRequestHttpException('nope'); });
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 400);
  assert.ok(!String(response.body).includes('nope'), 'the message is not revealed by the last-resort response');
});

// Synchronous where possible: a host that gets the response without a promise writes it in the same tick.
const tick = () => new Promise<void>((r) => setTimeout(r, 1));

test('synchronous listeners and controller: handle() answers without a promise', () => {
  const t = withController(emptyHookTable(), () => HttpResponse.text('now'));
  t['kernel.response'].push(listener('A::resp', 'r', (e) => e.response.headers.set('x-seen', '1')));
  const response = new HttpKernel(t, false).handle(makeRequest(false));
  assert.ok(response instanceof HttpResponse, 'not a promise');
  assert.equal(response.body, 'now');
  assert.equal(response.headers.get('x-seen'), '1');
});

test('asynchronous listeners in every hook and an async controller keep the order and the stop rule', async () => {
  const calls: string[] = [];
  const t = emptyHookTable();
  t['kernel.request'].push(listener('A::req1', 'r', async () => { await tick(); calls.push('request 1'); }));
  t['kernel.request'].push(listener('A::req2', 'r', (e) => {
    calls.push('request 2');
    e.request.attributes.set('_controller', async () => { await tick(); calls.push('controller call'); return { v: 1 }; });
  }));
  t['kernel.controller'].push(listener('A::ctl', 'c', async () => { await tick(); calls.push('controller'); }));
  t['kernel.controller_arguments'].push(listener('A::args', 'a', async () => { await tick(); calls.push('arguments'); }));
  t['kernel.view'].push(listener('A::view', 'v', async (e) => { await tick(); calls.push('view'); e.setResponse(HttpResponse.json(e.controllerResult)); }));
  t['kernel.response'].push(listener('A::resp1', 'r', async () => { await tick(); calls.push('response 1'); }));
  t['kernel.response'].push(listener('A::resp2', 'r', () => void calls.push('response 2')));
  t['kernel.finish_request'].push(listener('A::fin', 'f', async () => { await tick(); calls.push('finish'); }));
  const pending = new HttpKernel(t, false).handle(makeRequest(false));
  assert.ok(pending instanceof Promise);
  const response = await pending;
  assert.equal(response.body, '{"v":1}');
  assert.deepEqual(calls, ['request 1', 'request 2', 'controller', 'arguments', 'controller call', 'view', 'response 1', 'response 2', 'finish']);

  const early = emptyHookTable();
  early['kernel.request'].push(listener('A::early', 'r', async (e) => { await tick(); e.setResponse(HttpResponse.text('early')); }));
  early['kernel.request'].push(listener('A::late', 'r', () => { throw new Error('must not run'); }));
  assert.equal((await new HttpKernel(early, false).handle(makeRequest(false))).body, 'early');
});

test('a rejection in an async listener goes through kernel.exception, also when that hook is async', async () => {
  const t = withController(emptyHookTable(), () => HttpResponse.text('unreached'));
  t['kernel.controller'].push(listener('A::ctl', 'c', async () => { await tick(); throw new MethodNotAllowedHttpException(['GET'], 'nope'); }));
  t['kernel.exception'].push(listener('A::render', 'e', async (e) => { await tick(); e.setResponse(HttpResponse.text(`caught ${(e.throwable as Error).message}`)); }));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 405);
  assert.equal(response.body, 'caught nope');
});

test('a response listener failing on the error response: the error response goes out as it is', async () => {
  for (const failing of [() => { throw new Error('sync'); }, async () => { await tick(); throw new Error('async'); }]) {
    const t = errorToResponse(withController(emptyHookTable(), () => { throw new BadRequestHttpException('bad'); }));
    t['kernel.response'].push(listener('Broken::resp', 'r', (e) => (e.response.status >= 400 ? failing() : undefined)));
    const response = await new HttpKernel(t, false).handle(makeRequest(false));
    assert.equal(response.status, 400);
    assert.equal(response.body, 'BadRequestHttpException|bad|');
  }
});

test('no exception listener answers and finish_request fails: still a minimal response, sync or async', async () => {
  for (const failing of [() => { throw new Error('sync'); }, async () => { await tick(); throw new Error('async'); }]) {
    const t = withController(emptyHookTable(), () => { throw new BadRequestHttpException('nope'); });
    t['kernel.finish_request'].push(listener('Broken::fin', 'f', failing));
    const response = await new HttpKernel(t, false).handle(makeRequest(false));
    assert.equal(response.status, 400);
    assert.equal(response.body, 'Error\n');
  }
  const t = withController(emptyHookTable(), () => { throw new Error('first'); });
  t['kernel.exception'].push(listener('Broken::render', 'r', async () => { await tick(); throw new Error('renderer broke'); }));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 500);
  assert.equal(response.body, 'Internal Server Error\n');
});

test('debug mode traces every listener call and logs it on the event channel', async () => {
  const lines: string[] = [];
  const request = makeRequest(true, lines);
  const t = withController(emptyHookTable(), () => HttpResponse.text('ok'));
  t['kernel.response'].push(listener('R::one', 'response role', () => {}));
  await new HttpKernel(t, true).handle(request);
  assert.deepEqual(request.trace!.map((c) => `${c.hook} ${c.listener} ${c.role}`), ['kernel.request Test::route routing', 'kernel.response R::one response role']);
  assert.ok(request.trace!.every((c) => c.durationMs >= 0 && c.startMs >= 0));
  const events = lines.map((l) => JSON.parse(l)).filter((r) => r.channel === 'event');
  assert.deepEqual(events.map((r) => r.message), ['Notified event "kernel.request" to listener "Test::route".', 'Notified event "kernel.response" to listener "R::one".']);
  assert.equal(events[0].level_name, 'DEBUG');
  assert.equal(request.logRecords.length, 0, 'event records are not kept in the request\'s log buffer');
});

test('debug trace: a call starts where the one before ended; the event lines, written after the hook, fall in no call', async () => {
  const busy = (ms: number) => () => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  for (const level of ['debug', 'warning'] as const) {
    const slowSink = busy(2);
    const request = makeRequest(true, [], new LogStream(slowSink, level, 'json'));
    const t = withController(emptyHookTable(), () => HttpResponse.text('ok'));
    for (const name of ['A', 'B', 'C']) t['kernel.response'].push(listener(`R::${name}`, 'busy', busy(3)));
    await new HttpKernel(t, true).handle(request);
    const calls = request.trace!.filter((c) => c.hook === 'kernel.response');
    assert.equal(calls.length, 3, level);
    for (const c of calls) assert.ok(c.durationMs >= 3, `${level}: ${c.listener} lasted ${c.durationMs} ms`);
    for (let i = 1; i < calls.length; i++) {
      const gap = calls[i]!.startMs - (calls[i - 1]!.startMs + calls[i - 1]!.durationMs);
      assert.ok(Math.abs(gap) < 1e-6, `${level}: gap ${gap} ms before ${calls[i]!.listener}`);
    }
  }
});

test('production mode keeps no trace', async () => {
  const request = makeRequest(false);
  await new HttpKernel(withController(emptyHookTable(), () => HttpResponse.text('ok')), false).handle(request);
  assert.equal(request.trace, null);
});

test('kernel.terminate errors are logged, not thrown', async () => {
  const lines: string[] = [];
  const request = makeRequest(true, lines);
  const t = emptyHookTable();
  t['kernel.terminate'].push(listener('T::boom', 't', () => { throw new Error('late failure'); }));
  await new HttpKernel(t, true).terminate(request, HttpResponse.text(''));
  assert.ok(lines.some((l) => l.includes('late failure') && l.includes('CRITICAL')));
});

test('listeners can be inserted before, after, at an index or by priority', () => {
  const mk = (id: string, priority?: number) => listener<'kernel.request'>(id, 'r', () => {}, priority);
  const list = [mk('A', 100), mk('B', 32), mk('C', 8)];
  insertListener(list, mk('before-B'), { before: 'B' });
  insertListener(list, mk('after-C'), { after: 'C' });
  insertListener(list, mk('first'), { index: 0 });
  insertListener(list, mk('p50', 50), { priority: 50 });
  insertListener(list, mk('p32', 32), { priority: 32 });
  assert.deepEqual(list.map((l) => l.id), ['first', 'A', 'p50', 'before-B', 'B', 'p32', 'C', 'after-C']);
  assert.throws(() => insertListener(list, mk('x'), { before: 'missing' }), /No listener "missing"/);
});

test('regression: listeners placed with { priority } ran in registration order (the placement\'s priority was not recorded) and one without a placement ran at the end of the hook, whatever its own priority', async () => {
  const ran: string[] = [];
  const probe = (id: string, priority?: number) => ({ id, role: 'probe', priority, call: () => void ran.push(id) });
  const app = createApp({
    env: 'prod', logSink: () => {},
    routes: [{ name: 'x', path: '/x', controller: () => { throw new Error('boom'); } }],
    listeners: [
      { hook: 'kernel.request', listener: probe('App::p200'), placement: { priority: 200 } },
      { hook: 'kernel.request', listener: probe('App::p250'), placement: { priority: 250 } },
      { hook: 'kernel.request', listener: probe('App::own500', 500) },
      { hook: 'kernel.request', listener: probe('App::default') },
      { hook: 'kernel.request', listener: probe('App::p300'), placement: { priority: 300 } },
      { hook: 'kernel.response', listener: probe('App::resp5'), placement: { priority: 5 } },
      { hook: 'kernel.response', listener: probe('App::resp10'), placement: { priority: 10 } },
      { hook: 'kernel.response', listener: probe('App::resp10b'), placement: { priority: 10 } },
      // Symfony's default priority 0 runs before ErrorListener::onKernelException (-128), which answers and stops the hook.
      { hook: 'kernel.exception', listener: probe('App::onError') },
    ],
  });
  const response = await app.fetch(new Request('http://h/x'));
  assert.equal(response.status, 500);
  await response.text();
  assert.deepEqual(ran, ['App::own500', 'App::p300', 'App::p250', 'App::p200', 'App::default', 'App::onError', 'App::resp10', 'App::resp10b', 'App::resp5']);
});

test('regression: a listener placed before, after or at an index kept its own priority, so later { priority } placements landed on the wrong side of it', () => {
  const mk = (id: string, priority?: number) => listener<'kernel.request'>(id, 'r', () => {}, priority);
  const list = [mk('A', 100), mk('B', 32), mk('C', 8)];
  insertListener(list, mk('after-C', 500), { after: 'C' });
  insertListener(list, mk('p20'), { priority: 20 });
  assert.deepEqual(list.map((l) => [l.id, l.priority]), [['A', 100], ['B', 32], ['p20', 20], ['C', 8], ['after-C', 8]]);
});

test('regression: a listener without call, a null one or a NaN placement was accepted when the app was built, then every request was a 500 or the listener ran before request validation', () => {
  const mk = (id: string, priority?: number) => listener<'kernel.request'>(id, 'r', () => {}, priority);
  const list = [mk('A', 100), mk('B', 32)];
  const bad: [unknown, unknown, RegExp][] = [
    [null, undefined, /^TypeError: A listener must be an object with a non-empty string id and a call\(event\) function, got null\.$/],
    [{ id: 'X', role: 'r' }, undefined, /got \{ id: "X" \}/],
    [{ role: 'r', call() {} }, undefined, /got \{ id: undefined \}/],
    [mk('n'), { index: Number.NaN }, /^TypeError: Listener "n": placement index must be an integer >= 0, got null\.$/],
    [mk('n'), { priority: Number.NaN }, /placement priority must be a finite number/],
    [mk('n'), { priority: '20' }, /placement priority must be a finite number, got "20"/],
    [mk('n'), {}, /a placement is exactly one of/],
    [mk('n'), { before: 'A', after: 'B' }, /a placement is exactly one of .*got \{ before, after \}/],
  ];
  for (const [l, placement, message] of bad) {
    assert.throws(() => insertListener(list, l as never, placement as never), message, JSON.stringify(placement));
  }
  assert.deepEqual(list.map((l) => l.id), ['A', 'B'], 'nothing was inserted');
});

test('regression: a listener that returned a value that is no promise (e => map.set(...)) made the request a 500', async () => {
  for (const debug of [false, true]) {
    const seen = new Map<string, string>();
    const t = emptyHookTable();
    t['kernel.request'].push(listener('T::record', 'r', ((e: { request: { method: string } }) => seen.set('method', e.request.method)) as never));
    t['kernel.request'].push(listener('T::answer', 'r', (e) => e.setResponse(HttpResponse.text('answered'))));
    const response = await new HttpKernel(t, debug).handle(makeRequest(debug, []));
    assert.equal(response.status, 200, `debug=${debug}`);
    assert.equal(response.body, 'answered');
    assert.equal(seen.get('method'), 'GET');
  }
});

test('with Error.stackTraceLimit at 0, framework errors are built without a stack but keep their shape', () => {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let error: MethodNotAllowedHttpException;
  let inner: BadRequestHttpException;
  try {
    inner = new BadRequestHttpException('inner');
    error = new MethodNotAllowedHttpException(['GET', 'head'], 'No route', inner);
  } finally {
    Error.stackTraceLimit = limit;
  }
  assert.ok(error instanceof MethodNotAllowedHttpException && error instanceof Error);
  assert.equal(error.message, 'No route');
  assert.equal(error.statusCode, 405);
  assert.equal(error.headers.Allow ?? error.headers.allow, 'GET, HEAD');
  assert.equal(error.previous, inner);
  assert.equal(error.cause, inner);
  assert.equal(error.className, 'MethodNotAllowedHttpException');
  assert.equal(error.stack, 'Error: No route');
  assert.equal(String(error), 'Error: No route');
  assert.equal(inner.previous, undefined);
  assert.ok(!('cause' in inner));
  // With a limit, the usual native error with a stack from the construction site.
  const withStack = new BadRequestHttpException('x');
  assert.match(withStack.stack ?? '', /kernel\.test\.ts/);
});

test('RequestEvent.fail ends the request like a throw: remaining request listeners skipped, kernel.exception renders it', async () => {
  for (const debug of [false, true]) {
    const calls: string[] = [];
    const t = errorToResponse(emptyHookTable());
    t['kernel.request'].push(listener('A::fail', 'r', (e) => e.fail(new MethodNotAllowedHttpException(['GET'], 'nope'))));
    t['kernel.request'].push(listener('A::late', 'r', () => void calls.push('late')));
    t['kernel.controller'].push(listener('A::ctl', 'c', () => void calls.push('controller')));
    t['kernel.response'].push(listener('A::resp', 'r', () => void calls.push('response')));
    const lines: string[] = [];
    const request = makeRequest(debug, lines);
    const response = await new HttpKernel(t, debug).handle(request);
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET');
    assert.equal(response.body, 'MethodNotAllowedHttpException|nope|');
    assert.deepEqual(calls, ['response']);
    if (debug) {
      assert.deepEqual(request.trace!.map((c) => c.listener), ['A::fail', 'Test::render', 'A::resp']);
      assert.ok(!lines.some((l) => l.includes('A::fail') && l.includes('stopped propagation')), 'a failure is not a stopped propagation');
      assert.ok(!lines.some((l) => l.includes('was not called')), 'nor are the listeners it skips "not called" in the log');
    }
  }
  const t = errorToResponse(emptyHookTable());
  t['kernel.request'].push(listener('A::slow', 'r', async (e) => { await tick(); e.fail(new SuspiciousOperationException('late failure')); }));
  t['kernel.request'].push(listener('A::late', 'r', () => { throw new Error('must not run'); }));
  const response = await new HttpKernel(t, false).handle(makeRequest(false));
  assert.equal(response.status, 400, 'a request error handed over asynchronously is a 400 too');
  assert.equal(response.body, 'BadRequestHttpException|late failure|SuspiciousOperationException');
});

/** An app whose log lines are kept (line format), for tests that look at what a client and an operator see. */
function appWithLog(debug: boolean, options: AppOptions = {}) {
  const lines: string[] = [];
  const app = createApp({ debug, env: debug ? 'dev' : 'prod', environment: {}, logSink: (l) => lines.push(l), ...options });
  return { app, lines, get: (path: string, init?: RequestInit) => app.fetch(new Request(`http://localhost${path}`, init)) };
}

/** A thrown value that no reader can look at: every trap throws, `instanceof` included. */
const hostileProxy = () => new Proxy({}, { get() { throw new Error('trap get'); }, getPrototypeOf() { throw new Error('trap proto'); } });
const revokedProxy = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};

test('regression: a kernel.terminate listener throwing an error whose message getter throws, or a hostile Proxy, made terminate() reject (an unhandled rejection ended a serve() process)', async () => {
  const unreadable = new Error('x');
  Object.defineProperty(unreadable, 'message', { get() { throw new Error('message getter'); } });
  for (const [thrown, described] of [[unreadable, '[unreadable message]'], [hostileProxy(), 'Non-error value thrown: [unreadable value]']] as const) {
    const lines: string[] = [];
    const request = makeRequest(true, lines);
    const t = emptyHookTable();
    t['kernel.terminate'].push(listener('T::boom', 't', () => { throw thrown; }));
    await new HttpKernel(t, true).terminate(request, HttpResponse.text(''));
    const records = lines.map((l) => JSON.parse(l) as { message: string; level_name: string }).filter((r) => r.message.startsWith('Exception thrown in kernel.terminate'));
    assert.deepEqual(records.map((r) => [r.level_name, r.message]), [['CRITICAL', `Exception thrown in kernel.terminate: ${described}`]]);
  }
});

test('regression: a hostile or revoked Proxy thrown by the controller or a kernel.exception listener made app.fetch reject instead of answering', async () => {
  const cases: Record<string, AppOptions> = {
    'controller throws a hostile Proxy': { routes: [{ name: 't', path: '/t', controller: () => { throw hostileProxy(); } }] },
    'async controller rejects with a revoked Proxy': { routes: [{ name: 't', path: '/t', controller: async () => { throw revokedProxy(); } }] },
    'kernel.exception listener throws a hostile Proxy': {
      routes: [{ name: 't', path: '/t', controller: () => { throw new Error('first'); } }],
      listeners: [{ hook: 'kernel.exception', listener: listener<'kernel.exception'>('Test::hostile', 't', () => { throw hostileProxy(); }), placement: { index: 0 } }],
    },
    'async kernel.exception listener rejects with a revoked Proxy': {
      routes: [{ name: 't', path: '/t', controller: () => { throw new Error('first'); } }],
      listeners: [{ hook: 'kernel.exception', listener: listener<'kernel.exception'>('Test::revoked', 't', async () => { throw revokedProxy(); }), placement: { index: 0 } }],
    },
  };
  for (const debug of [false, true]) {
    for (const [name, options] of Object.entries(cases)) {
      const { get } = appWithLog(debug, options);
      const response = await get('/t');
      assert.equal(response.status, 500, `${name}, debug=${debug}`);
      await response.text();
    }
  }
});

test('regression: an HttpException header a response refuses (CR/LF) made app.fetch reject when a kernel.exception listener answered with a 2xx page', async () => {
  const { get } = appWithLog(false, {
    routes: [{ name: 't', path: '/t', controller: () => { throw new HttpException(503, 'down', undefined, { 'Retry-After': '1\r\nX-Injected: y', 'X-Kept': 'yes' }); } }],
    listeners: [{ hook: 'kernel.exception', listener: listener<'kernel.exception'>('Test::maintenance', 't', (e) => e.setResponse(HttpResponse.html('<h1>Maintenance</h1>'))), placement: { index: 0 } }],
  });
  const response = await get('/t');
  assert.equal(response.status, 503, 'the exception\'s status, as Symfony gives a 2xx error response');
  assert.equal(response.headers.get('x-kept'), 'yes', 'its other headers are still copied');
  assert.equal(response.headers.get('retry-after'), null);
  assert.equal(response.headers.get('x-injected'), null);
  assert.equal(await response.text(), '<h1>Maintenance</h1>');
});

test('regression: the last-resort 500 and an error response a kernel.response listener failed on kept their body on HEAD, and the latter went out without X-Robots-Tag and Cache-Control (CONTRACT §9)', async () => {
  const failing = (hook: 'kernel.exception' | 'kernel.response', placement: AnyListenerRegistration['placement']): AnyListenerRegistration =>
    hook === 'kernel.exception'
      ? { hook, listener: listener<'kernel.exception'>('Test::fails', 't', () => { throw new Error('listener failed'); }), placement }
      : { hook, listener: listener<'kernel.response'>('Test::fails', 't', (e) => { if (e.response.status >= 500) throw new Error('listener failed'); }), placement };
  const variants: Record<string, AnyListenerRegistration> = {
    'a kernel.exception listener fails (last resort)': failing('kernel.exception', { index: 0 }),
    'the first kernel.response listener fails on the error response': failing('kernel.response', { index: 0 }),
    'a kernel.response listener after ResponseListener fails on it': failing('kernel.response', { after: 'ResponseListener::onKernelResponse' }),
  };
  const routes: RouteDefinition[] = [{ name: 't', path: '/t', controller: () => { throw new Error('boom'); } }];
  for (const debug of [false, true]) {
    for (const [name, registration] of Object.entries(variants)) {
      const { get } = appWithLog(debug, { routes, listeners: [registration] });
      const label = `${name}, debug=${debug}`;
      const got = await get('/t');
      const body = await got.text();
      const head = await get('/t', { method: 'HEAD' });
      for (const response of [got, head]) {
        assert.equal(response.status, 500, label);
        assert.equal(response.headers.get('x-robots-tag'), 'noindex', label);
        assert.equal(response.headers.get('cache-control'), 'no-cache, private', label);
      }
      assert.ok(body.length > 0, label);
      assert.equal(await head.text(), '', `${label}: HEAD has no body`);
      // GET's length. A debug page shows the request's method in a few places, so HEAD's own page is a few bytes longer.
      const length = Number(head.headers.get('content-length'));
      const expected = Buffer.byteLength(body);
      assert.ok(debug ? Math.abs(length - expected) < 20 : length === expected, `${label}: HEAD keeps GET's length (${expected}), got ${length}`);
    }
  }
  // The robots setting is the app's: off, the last resort carries no X-Robots-Tag either.
  const { get } = appWithLog(false, { routes, listeners: [variants['a kernel.exception listener fails (last resort)']!], disallowRobotsIndexing: false });
  assert.equal((await get('/t')).headers.get('x-robots-tag'), null);
});

test('regression: "must return a Response" described a string, number, boolean or array less precisely than Symfony\'s varToString', async () => {
  const long = 'é'.repeat(300);
  const expected: [unknown, string][] = [
    ['hello', 'a string ("hello")'],
    [long, `a string ("${'é'.repeat(255)}...")`],
    ['x'.repeat(255), `a string ("${'x'.repeat(255)}")`],
    [42, 'a number (42)'],
    [1.5, 'a number (1.5)'],
    [false, 'a boolean value (false)'],
    [true, 'a boolean value (true)'],
    [[1, 2], 'an array ([0 => ..., 1 => ...])'],
    [[], 'an array ([])'],
    [new Array(100).fill(0), `an array ([${Array.from({ length: 100 }, (_, i) => `${i} => ...`).join(', ').slice(0, 255)}])`],
    [new Map(), 'an object of type Map'],
    [null, 'null'],
  ];
  for (const [result, description] of expected) {
    const t = errorToResponse(withController(emptyHookTable(), () => result));
    const response = await new HttpKernel(t, false).handle(makeRequest(false));
    assert.equal(response.status, 500);
    const message = String(response.body).split('|')[1];
    assert.ok(message?.startsWith(`The controller must return a "Response" object but it returned ${description}.`), `${description}: ${message}`);
  }
});

test('regression: a listener or controller returning another realm\'s promise or a library thenable broke the request (500 "toFetch is not a function") and left its rejection unhandled', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    // A promise of another realm (node:vm) is no `instanceof Promise`; nor is a library's thenable.
    const realm = vm.createContext({});
    const foreign = vm.runInContext('(value) => Promise.resolve(value)', realm) as (value: unknown) => PromiseLike<unknown>;
    const foreignReject = vm.runInContext('(error) => Promise.reject(error)', realm) as (error: unknown) => PromiseLike<never>;
    const thenable = (value: unknown) => ({ then: (resolve: (v: unknown) => void) => setTimeout(() => resolve(value), 1) });
    const routes: RouteDefinition[] = [
      { name: 'ok', path: '/ok', controller: () => HttpResponse.text('ok') },
      { name: 'realm', path: '/realm', controller: () => foreign(HttpResponse.text('from another realm')) },
      { name: 'thenable', path: '/thenable', controller: () => thenable(HttpResponse.text('from a thenable')) },
      { name: 'rejects', path: '/rejects', controller: () => foreignReject(new HttpException(409, 'taken')) },
    ];
    for (const debug of [false, true]) {
      const listeners: AnyListenerRegistration[] = [
        { hook: 'kernel.request', listener: listener('Foreign::request', 'r', () => foreign(undefined) as Promise<void>) },
        { hook: 'kernel.response', listener: listener('Thenable::response', 'r', (e) => thenable(void e.response.headers.set('x-seen', '1')) as unknown as Promise<void>) },
      ];
      const { get } = appWithLog(debug, { routes, listeners });
      for (const [path, status, body] of [['/ok', 200, 'ok'], ['/realm', 200, 'from another realm'], ['/thenable', 200, 'from a thenable']] as const) {
        const response = await get(path);
        assert.equal(response.status, status, `${path} (debug ${debug})`);
        assert.equal(await response.text(), body, `${path} (debug ${debug})`);
        assert.equal(response.headers.get('x-seen'), '1', `${path} (debug ${debug}): the rest of the hook ran`);
      }
      const rejected = await get('/rejects', { headers: { accept: 'application/json' } });
      assert.equal(rejected.status, 409, `the rejection is the request's error (debug ${debug})`);
    }
    await tick();
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('regression: a kernel.view listener after the one that set the response still ran and replaced it (ViewEvent::setResponse stops propagation)', async () => {
  for (const debug of [false, true]) {
    const calls: string[] = [];
    // A catch-all serializer after the template listener, as an API bundle registers one.
    const serializer: AnyListenerRegistration = {
      hook: 'kernel.view',
      listener: listener('Api::serialize', 'v', (e) => { calls.push('serializer'); e.setResponse(HttpResponse.json(e.controllerResult)); }),
      placement: { priority: -10 },
    };
    const routes: RouteDefinition[] = [
      { name: 'page', path: '/page', controller: () => ({ title: 'Home' }), options: { template: (data: Record<string, unknown>) => `<p>${String(data.title)}</p>` } },
      { name: 'api', path: '/api', controller: () => ({ title: 'Home' }) },
    ];
    const { get } = appWithLog(debug, { routes, listeners: [serializer] });
    const page = await get('/page');
    assert.equal(page.status, 200);
    assert.equal(await page.text(), '<p>Home</p>', `debug ${debug}: the template's response stands`);
    assert.deepEqual(calls, [], `debug ${debug}: the listeners after it do not run`);
    const api = await get('/api');
    assert.deepEqual(await api.json(), { title: 'Home' }, `debug ${debug}: without a template the serializer answers`);
  }
});

test('regression: a template render function or a security predicate answering another realm\'s promise was taken as the body or as a refusal; it is awaited', async () => {
  const realm = vm.createContext({});
  const foreign = vm.runInContext('(value) => Promise.resolve(value)', realm) as (value: unknown) => PromiseLike<unknown>;
  const routes: RouteDefinition[] = [
    { name: 'rendered', path: '/rendered', controller: () => ({ title: 'Hello' }), options: { template: ((data: Record<string, unknown>) => foreign(`<h1>${String(data.title)}</h1>`)) as unknown as (data: Record<string, unknown>) => string } },
    { name: 'guarded', path: '/guarded', controller: () => HttpResponse.text('let in'), options: { security: (() => foreign(true)) as unknown as () => boolean } },
  ];
  for (const debug of [false, true]) {
    const { get } = appWithLog(debug, { routes });
    const page = await get('/rendered');
    assert.equal(page.status, 200, `debug ${debug}`);
    assert.equal(await page.text(), '<h1>Hello</h1>');
    const guarded = await get('/guarded');
    assert.equal(guarded.status, 200, `debug ${debug}`);
    assert.equal(await guarded.text(), 'let in');
  }
});

test('stopPropagation() on any hook skips the listeners after it, sync or async, and the kernel goes on to its next step', async () => {
  for (const debug of [false, true]) {
    for (const asynchronous of [false, true]) {
      const calls: string[] = [];
      const t = emptyHookTable();
      t['kernel.request'].push(listener('A::route', 'r', (e) => void e.request.attributes.set('_controller', () => { calls.push('controller'); return HttpResponse.text('ok'); })));
      for (const hook of ['kernel.controller', 'kernel.controller_arguments', 'kernel.response', 'kernel.finish_request'] as const) {
        t[hook].push(listener(`A::stop ${hook}`, 's', (e: { stopPropagation(): void }) => {
          calls.push(`stop ${hook}`);
          if (!asynchronous) return e.stopPropagation();
          return tick().then(() => e.stopPropagation());
        }) as never);
        t[hook].push(listener(`A::skipped ${hook}`, 's', () => void calls.push(`skipped ${hook}`)) as never);
      }
      const response = await new HttpKernel(t, debug).handle(makeRequest(debug));
      assert.equal(response.body, 'ok');
      assert.deepEqual(calls, ['stop kernel.controller', 'stop kernel.controller_arguments', 'controller', 'stop kernel.response', 'stop kernel.finish_request'], `debug ${debug}, async ${asynchronous}`);
    }
  }
});

test('debug: a stopped hook logs Symfony\'s "stopped propagation" line, and "was not called" for each listener it skipped', async () => {
  const lines: string[] = [];
  const request = makeRequest(true, lines);
  const t = emptyHookTable();
  t['kernel.request'].push(listener('A::answer', 'r', (e) => e.setResponse(HttpResponse.text('early'))));
  t['kernel.request'].push(listener('A::second', 'r', () => {}));
  t['kernel.request'].push(listener('A::third', 'r', () => {}));
  t['kernel.response'].push(listener('A::last', 'r', (e) => e.stopPropagation()));
  const response = await new HttpKernel(t, true).handle(request);
  assert.equal(response.body, 'early');
  const messages = lines.map((l) => (JSON.parse(l) as { message: string }).message);
  assert.deepEqual(messages, [
    'Notified event "kernel.request" to listener "A::answer".',
    'Listener "A::answer" stopped propagation of the event "kernel.request".',
    'Listener "A::second" was not called for event "kernel.request".',
    'Listener "A::third" was not called for event "kernel.request".',
    'Notified event "kernel.response" to listener "A::last".',
    // The last listener stopping is a stop all the same, as Symfony's WrappedListener records it.
    'Listener "A::last" stopped propagation of the event "kernel.response".',
  ]);
  assert.deepEqual(request.trace!.map((c) => c.listener), ['A::answer', 'A::last']);
});

test('regression: debug mode wrote each "Notified event" line between listener calls, so a listener\'s own log line ("Matched route") came after the event lines of the listeners before it; Symfony\'s TraceableEventDispatcher writes a hook\'s event lines once the hook is over', async () => {
  for (const asynchronous of [false, true]) {
    const lines: string[] = [];
    const request = makeRequest(true, lines);
    const run = (work: () => void) => (asynchronous ? tick().then(work) : work());
    const t = emptyHookTable();
    t['kernel.request'].push(listener('A::first', 'r', () => run(() => {})));
    t['kernel.request'].push(listener('A::logs', 'r', (e) => run(() => e.request.logger.info('app', 'logged by A::logs'))));
    t['kernel.request'].push(listener('A::throws', 'r', () => run(() => { throw new Error('request failed'); })));
    t['kernel.request'].push(listener('A::skipped', 'r', () => {}));
    t['kernel.exception'].push(listener('X::render', 'x', (e) => run(() => { e.request.logger.info('app', 'logged by X::render'); e.setResponse(HttpResponse.text('rendered', 500)); })));
    t['kernel.exception'].push(listener('X::skipped', 'x', () => {}));
    t['kernel.response'].push(listener('R::one', 'r', (e) => run(() => e.request.logger.info('app', 'logged by R::one'))));
    t['kernel.response'].push(listener('R::two', 'r', () => {}));
    const response = await new HttpKernel(t, true).handle(request);
    assert.equal(response.body, 'rendered');
    const messages = lines.map((l) => (JSON.parse(l) as { message: string }).message);
    assert.deepEqual(messages, [
      'logged by A::logs',
      'Notified event "kernel.request" to listener "A::first".',
      'Notified event "kernel.request" to listener "A::logs".',
      // The listener that failed was called; the ones after it were not, and no line says so (no stop).
      'Notified event "kernel.request" to listener "A::throws".',
      'logged by X::render',
      'Notified event "kernel.exception" to listener "X::render".',
      'Listener "X::render" stopped propagation of the event "kernel.exception".',
      'Listener "X::skipped" was not called for event "kernel.exception".',
      'logged by R::one',
      'Notified event "kernel.response" to listener "R::one".',
      'Notified event "kernel.response" to listener "R::two".',
    ], `async ${asynchronous}`);
  }
});

test('regression: a listener that returns null (PHP\'s `return null;`, ported) made every request a 500 ("Cannot read properties of null"); what a listener returns is ignored unless it is a promise', async () => {
  const { createApp } = await import('../../src/index.ts');
  for (const debug of [false, true]) {
    const app = createApp({
      env: debug ? 'dev' : 'prod',
      debug,
      environment: {},
      logSink: () => {},
      routes: [{ name: 'ok', path: '/ok', controller: () => HttpResponse.text('ok') }],
      listeners: [
        { hook: 'kernel.request', listener: listener<'kernel.request'>('App::returnsNull', 'r', () => null as unknown as void) },
        { hook: 'kernel.response', listener: listener<'kernel.response'>('App::returnsFalse', 'r', () => false as unknown as void) },
      ],
    });
    const r = await app.fetch(new Request('http://localhost/ok'));
    assert.equal(r.status, 200, debug ? 'debug' : 'prod');
    assert.equal(await r.text(), 'ok');
  }
});

test('regression: a kernel.terminate listener throwing a string was logged as "Exception thrown in kernel.terminate: undefined"', async () => {
  const lines: string[] = [];
  const request = makeRequest(true, lines);
  const t = emptyHookTable();
  t['kernel.terminate'].push(listener('T::boom', 't', () => { throw 'the mailer is down'; }));
  await new HttpKernel(t, true).terminate(request, HttpResponse.text(''));
  const records = lines.map((l) => JSON.parse(l) as { message: string }).filter((r) => r.message.startsWith('Exception thrown in kernel.terminate'));
  assert.deepEqual(records.map((r) => r.message), ['Exception thrown in kernel.terminate: the mailer is down']);
});
