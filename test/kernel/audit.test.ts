import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, HttpResponse, MethodNotAllowedHttpException, ServiceUnavailableHttpException, UnauthorizedHttpException, type AnyListenerRegistration } from '../../src/index.ts';

/** A kernel.exception listener that stops the hook without answering: ErrorListener::onKernelException never renders. */
const stopsUnanswered: AnyListenerRegistration = {
  hook: 'kernel.exception',
  listener: { id: 'App\\EventListener\\Silencer::onKernelException', role: 'stops the hook', call: (event) => event.stopPropagation() },
  placement: { priority: 10 },
};

test('regression: when no kernel.exception listener answered, the minimal response kept the HTTP status but dropped the exception\'s headers (Allow, WWW-Authenticate, Retry-After); Symfony\'s ErrorHandler::renderException sends them', async () => {
  const routes = [
    { name: 'allow', path: '/allow', controller: () => { throw new MethodNotAllowedHttpException(['GET', 'POST'], 'no'); } },
    { name: 'auth', path: '/auth', controller: () => { throw new UnauthorizedHttpException('Bearer realm="api"', 'who?'); } },
    { name: 'later', path: '/later', controller: () => { throw new ServiceUnavailableHttpException(120, 'busy'); } },
    { name: 'plain', path: '/plain', controller: () => HttpResponse.text('ok') },
  ];
  for (const env of ['prod', 'dev'] as const) {
    const app = createApp({ env, environment: {}, logSink: () => {}, routes, listeners: [stopsUnanswered] });
    for (const method of ['GET', 'HEAD']) {
      const allow = await app.fetch(new Request('http://localhost/allow', { method }));
      assert.equal(allow.status, 405, `${env} ${method}`);
      assert.equal(allow.headers.get('allow'), 'GET, POST', `${env} ${method}`);
      const auth = await app.fetch(new Request('http://localhost/auth', { method }));
      assert.equal(auth.status, 401);
      assert.equal(auth.headers.get('www-authenticate'), 'Bearer realm="api"');
      const later = await app.fetch(new Request('http://localhost/later', { method }));
      assert.equal(later.status, 503);
      assert.equal(later.headers.get('retry-after'), '120');
      // Still the minimal answer: nothing of the message, CONTRACT §9's defaults.
      assert.equal(later.headers.get('cache-control'), 'no-cache, private');
      assert.doesNotMatch(await later.text(), /busy/);
    }
  }
});

test('regression: a response a kernel.response listener put in place after the ResponseListener went out without Cache-Control (Symfony\'s Response computes it when built)', async () => {
  const replaceWith = (make: () => HttpResponse): AnyListenerRegistration => ({
    hook: 'kernel.response',
    listener: { id: 'App\\EventListener\\Replacer::onKernelResponse', role: 'replaces the response', call: (event) => { event.response = make(); } },
    placement: { priority: -10 },
  });
  const routes = [{ name: 'ok', path: '/ok', controller: () => HttpResponse.text('ok') }];
  const cases: [() => HttpResponse, string | null][] = [
    [() => new HttpResponse('replaced'), 'no-cache, private'],
    [() => new HttpResponse('replaced', 200, { 'last-modified': 'Wed, 21 Oct 2015 07:28:00 GMT' }), 'private, must-revalidate'],
    [() => new HttpResponse('replaced', 200, { 'cache-control': 'max-age=60, public' }), 'max-age=60, public'],
    // RedirectResponse removes a 301's default, and nothing brings it back.
    [() => HttpResponse.redirect('/elsewhere', 301), null],
  ];
  for (const [make, expected] of cases) {
    const app = createApp({ env: 'prod', environment: {}, logSink: () => {}, routes, listeners: [replaceWith(make)] });
    const r = await app.fetch(new Request('http://localhost/ok'));
    assert.equal(r.headers.get('cache-control'), expected, String(make));
  }
});

test('regression: an exception no kernel.exception listener answered was logged as "Exception thrown when handling an exception", though nothing was thrown while handling it (Symfony\'s ErrorHandler logs "Uncaught Exception: …", CRITICAL, channel php)', async () => {
  const lines: string[] = [];
  const app = createApp({
    env: 'prod',
    environment: { LOG_FORMAT: 'json' },
    logSink: (l) => lines.push(l),
    routes: [{ name: 'boom', path: '/boom', controller: () => { throw new Error('kaput'); } }],
    listeners: [stopsUnanswered],
  });
  assert.equal((await app.fetch(new Request('http://localhost/boom'))).status, 500);
  const records = lines.map((l) => JSON.parse(l) as { message: string; level_name: string; channel: string });
  assert.ok(!records.some((r) => r.message.startsWith('Exception thrown when handling')), lines.join('\n'));
  const uncaught = records.filter((r) => r.message === 'Uncaught Exception: kaput');
  assert.equal(uncaught.length, 1, lines.join('\n'));
  assert.equal(uncaught[0]!.level_name, 'CRITICAL');
  assert.equal(uncaught[0]!.channel, 'php');
});

test('regression: a body a kernel.response listener set after the ResponseListener went out on HEAD through app.fetch, its stream never cancelled (the Node adapter sends none)', async () => {
  let cancelled = 0;
  const late: AnyListenerRegistration = {
    hook: 'kernel.response',
    listener: {
      id: 'App\\EventListener\\Late::onKernelResponse',
      role: 'sets a streamed body late',
      call: (event) => {
        event.response.body = new ReadableStream<Uint8Array>({ pull: (c) => { c.enqueue(new TextEncoder().encode('late')); c.close(); }, cancel: () => void cancelled++ });
      },
    },
    placement: { priority: -1000 },
  };
  const app = createApp({ env: 'prod', environment: {}, logSink: () => {}, routes: [{ name: 'p', path: '/p', controller: () => HttpResponse.text('page') }], listeners: [late] });
  const head = await app.fetch(new Request('http://localhost/p', { method: 'HEAD' }));
  assert.equal(head.status, 200);
  assert.equal(await head.text(), '');
  assert.equal(cancelled, 1);
  const get = await app.fetch(new Request('http://localhost/p'));
  assert.equal(await get.text(), 'late', 'GET keeps what the listener set');
});
