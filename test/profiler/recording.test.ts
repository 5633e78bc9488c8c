/**
 * Recording (CONTRACT §6.1–6.3): tokens, headers, which requests are profiled, and when profiles are
 * stored (after the response).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp, HttpResponse, type KernelRequest } from '../../src/index.ts';
import { fixtureRoutes, get, ORIGIN, profiledApp, profileOf, tick } from './support.ts';
import { fetchSource } from '../../src/http/source.ts';
import { listener } from '../../src/kernel/hooks.ts';

describe('profiler recording', () => {
  test('every profiled response carries a 6-hex token and an absolute link to the _profiler route', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    for (const path of ['/html', '/json', '/redirect', '/nope', '/boom', '/plain']) {
      const r = await get(app, path);
      const token = r.headers.get('x-debug-token');
      assert.match(token ?? '', /^[0-9a-f]{6}$/, path);
      assert.equal(r.headers.get('x-debug-token-link'), `${ORIGIN}/_profiler/${token}`, path);
      assert.equal(r.headers.get('x-debug-token-link'), app.router.generate('_profiler', { token }, { absoluteBase: ORIGIN }));
    }
  });

  test('the link uses the request\'s scheme and host', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const r = await app.fetch(new Request('https://shop.example:8443/html'));
    const token = r.headers.get('x-debug-token');
    assert.equal(r.headers.get('x-debug-token-link'), `https://shop.example:8443/_profiler/${token}`);
    const h = await app.fetch(new Request('http://127.0.0.1:8000/html', { headers: { host: 'dev.local' } }));
    assert.equal(h.headers.get('x-debug-token-link'), `http://dev.local/_profiler/${h.headers.get('x-debug-token')}`);
  });

  test('an invalid Host still gets a token; its link is path-only (no attacker-chosen origin)', async () => {
    const app = profiledApp();
    const r = await app.fetch(new Request('http://127.0.0.1:8000/x', { headers: { host: 'a b' } }));
    assert.equal(r.status, 400);
    const token = r.headers.get('x-debug-token');
    assert.match(token ?? '', /^[0-9a-f]{6}$/);
    assert.equal(r.headers.get('x-debug-token-link'), `/_profiler/${token}`);
  });

  test('tokens are unique (3000 requests)', async () => {
    const app = profiledApp({ profilerDsn: 'memory://?max=5000' });
    const tokens = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const r = await app.fetch(new Request(`${ORIGIN}/missing-${i}`, { headers: { accept: 'application/json' } }));
      const token = r.headers.get('x-debug-token')!;
      assert.match(token, /^[0-9a-f]{6}$/);
      assert.ok(!tokens.has(token), `duplicate ${token}`);
      tokens.add(token);
    }
    await tick(50);
    assert.equal((await app.services.profiler!.find({ limit: 5000 })).length, 3000);
  });

  test('the profiler\'s own pages and /_wdt/* are not profiled', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const seed = await get(app, '/html');
    const token = seed.headers.get('x-debug-token')!;
    await tick();
    const before = (await app.services.profiler!.find({ limit: 100 })).length;
    for (const path of [
      `/_profiler/${token}`,
      `/_profiler/${token}?panel=performance`,
      `/_profiler/${token}/router`,
      `/_profiler/${token}/exception`,
      `/_profiler/${token}/search/results`,
      '/_profiler/search',
      '/_profiler/search?ip=1',
      '/_profiler/',
      '/_profiler/latest',
      '/_profiler/zzzzzz',
      `/_wdt/${token}`,
      '/_wdt/ffffff',
      '/_wdt/empty',
    ]) {
      const r = await get(app, path);
      assert.equal(r.headers.get('x-debug-token'), null, path);
      assert.equal(r.headers.get('x-debug-token-link'), null, path);
      assert.ok(!(await r.text()).includes('id="irms-wdt-'), `${path}: no toolbar`);
    }
    await tick(20);
    assert.equal((await app.services.profiler!.find({ limit: 100 })).length, before);
  });

  test('regression: a 404, 405 or redirect under /_profiler or /_wdt was not profiled (only the profiler\'s own pages are exempt)', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const cases: [string, RequestInit, number][] = [
      ['/_profiler/a/b/c', {}, 404],
      ['/_wdt/a/b', {}, 404],
      ['/_profiler/abcdef', { method: 'POST' }, 405],
      ['/_profiler', {}, 301],
    ];
    for (const [path, init, status] of cases) {
      const r = await get(app, path, init);
      assert.equal(r.status, status, path);
      const token = r.headers.get('x-debug-token');
      assert.match(token ?? '', /^[0-9a-f]{6}$/, path);
      assert.equal(r.headers.get('x-debug-token-link'), `${ORIGIN}/_profiler/${token}`, path);
      const profile = await profileOf(app, r);
      assert.equal(profile.status, status, path);
      assert.equal(new URL(profile.url).pathname, path, path);
    }
  });

  test('debug off: no profiler, no token, no profiler routes', async () => {
    const app = createApp({ env: 'prod', logSink: () => {}, environment: {}, routes: fixtureRoutes() });
    assert.equal(app.services.profiler, undefined);
    const r = await get(app, '/html');
    assert.equal(r.headers.get('x-debug-token'), null);
    assert.ok(!(await r.text()).includes('irms-wdt'));
    assert.equal((await get(app, '/_profiler/latest')).status, 404);
    assert.equal((await get(app, '/_wdt/abcdef')).status, 404);
  });

  test('query, header or cookie attempts cannot switch the profiler on', async () => {
    const app = createApp({ env: 'prod', logSink: () => {}, environment: {}, routes: fixtureRoutes() });
    const r = await app.fetch(new Request(`${ORIGIN}/html?debug=1&--env=dev&_profiler=1`, { headers: { 'x-debug': '1', cookie: 'debug=1' } }));
    assert.equal(r.headers.get('x-debug-token'), null);
  });

  test('the profile is stored after the response: not there when fetch() resolves, there a tick later', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const r = await get(app, '/html');
    const token = r.headers.get('x-debug-token')!;
    assert.equal(await app.services.profiler!.store.read(token), null, 'not stored before the host has the response');
    assert.equal(await app.services.profiler!.store.isPending(token), true);
    await tick(10);
    const profile = await app.services.profiler!.store.read(token);
    assert.equal(profile?.token, token);
    assert.equal(await app.services.profiler!.store.isPending(token), false);
  });

  test('with app.handle the profile is written only when the host calls terminate()', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const handled = await app.handle(fetchSource(new Request(`${ORIGIN}/html`)));
    const token = handled.response.headers.get('x-debug-token')!;
    await tick(20);
    assert.equal(await app.services.profiler!.store.read(token), null);
    handled.terminate?.();
    await tick(10);
    assert.ok(await app.services.profiler!.store.read(token));
  });

  test('a profile page asked for while the profile is being stored waits for it', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const handled = await app.handle(fetchSource(new Request(`${ORIGIN}/html`)));
    const token = handled.response.headers.get('x-debug-token')!;
    const page = get(app, `/_wdt/${token}`);
    setTimeout(() => handled.terminate?.(), 30);
    const r = await page;
    assert.equal(r.status, 200);
    assert.ok((await r.text()).includes(token));
  });

  test('the profile holds the request, the response, listener calls in order, logs and the exception chain', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const r = await app.fetch(new Request(`${ORIGIN}/boom?b=2&a=1`, { headers: { 'x-forwarded-for': '10.0.0.9', 'user-agent': 'test' } }), { remoteAddress: '192.0.2.7' });
    assert.equal(r.status, 500);
    const p = await profileOf(app, r);
    assert.equal(p.method, 'GET');
    assert.equal(p.status, 500);
    assert.equal(p.ip, '192.0.2.7', 'forwarded headers only from trusted proxies');
    assert.equal(p.url, `${ORIGIN}/boom?a=1&b=2`);
    assert.equal(p.route, 'boom');
    assert.equal(p.controller, 'boom');
    assert.deepEqual(p.request.query, { b: '2', a: '1' });
    assert.equal(p.request.headers['user-agent'], 'test');
    assert.equal(p.response.headers['content-type'], 'text/html; charset=UTF-8');
    assert.equal(p.exception?.class, 'Error');
    assert.equal(p.exception?.message, 'Checkout failed');
    assert.equal(p.exception?.previous?.class, 'TypeError');
    assert.equal(p.exception?.previous?.message, 'price is not a number');
    const calls = p.events.map((e) => `${e.hook} ${e.listener}`);
    assert.ok(calls.indexOf('kernel.request RouterListener::onKernelRequest') < calls.indexOf('kernel.exception ErrorListener::onKernelException'));
    assert.ok(calls.indexOf('kernel.exception ErrorListener::onKernelException') < calls.indexOf('kernel.response ProfilerListener::onKernelResponse'));
    for (let i = 1; i < p.events.length; i++) assert.ok(p.events[i]!.startMs >= p.events[i - 1]!.startMs, 'call order');
    assert.ok(p.events.every((e) => e.durationMs >= 0));
    assert.ok(p.logs.some((l) => l.channel === 'request' && l.level_name === 'CRITICAL' && l.message.includes('Checkout failed')));
    assert.ok(p.durationMs > 0 && p.totalMs >= p.durationMs);
    assert.ok(p.memory === null || p.memory > 0);
  });

  test('a request\'s body is recorded (masked, bounded) only when the application read it', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const big = 'x'.repeat(200_000);
    const r = await app.fetch(new Request(`${ORIGIN}/raw`, { method: 'POST', body: big, headers: { 'content-type': 'text/plain' } }));
    const p = await profileOf(app, r);
    assert.equal(p.request.contentLength, 200_000);
    assert.ok(p.request.content!.length <= 64 * 1024);
    assert.equal(p.request.contentTruncated, true);
    const unread = await app.fetch(new Request(`${ORIGIN}/html`, { method: 'POST', body: 'never read', headers: { 'content-type': 'text/plain' } }));
    assert.equal((await profileOf(app, unread)).request.content, null);
  });

  test('profiles stay bounded: 2000 log records and huge headers do not make a huge profile', async () => {
    const app = profiledApp({
      routes: [
        {
          name: 'noisy',
          path: '/noisy',
          controller(request) {
            for (let i = 0; i < 2000; i++) request.logger.info('app', `record ${i} ${'y'.repeat(2000)}`, { blob: 'z'.repeat(20_000) });
            return new Response('ok');
          },
        },
      ],
    });
    const r = await app.fetch(new Request(`${ORIGIN}/noisy`, { headers: { 'x-big': 'h'.repeat(60_000) } }));
    const p = await profileOf(app, r);
    assert.ok(JSON.stringify(p).length <= 1024 * 1024 + 1024, `profile is ${JSON.stringify(p).length} bytes`);
    assert.ok(p.logs.length <= 500);
    assert.ok(p.request.headers['x-big']!.length < 5000);
  });

  test('a stored profile is what the request logged, whatever the application changes in its objects afterwards', async () => {
    const context = { item: 'first', list: ['a'] };
    const app = profiledApp({
      routes: [
        {
          name: 'remember',
          path: '/remember',
          controller: (request: KernelRequest) => {
            request.logger.info('app', 'Item {item}', context);
            return HttpResponse.html('<html><body>ok</body></html>');
          },
        },
      ],
    });
    const p = await profileOf(app, await get(app, '/remember'));
    context.item = 'second';
    context.list.push('b');
    const again = await app.services.profiler!.load(p.token);
    const record = again?.logs.find((l) => l.message === 'Item first');
    assert.ok(record, 'the line as it was logged');
    assert.deepEqual(record.context, { item: 'first', list: ['a'] });
  });

  test('regression: an exception the controller caught and only logged was recorded as the request\'s exception', async () => {
    const handled = (level: 'warning' | 'error') =>
      function handledError(request: KernelRequest) {
        try {
          JSON.parse('{');
        } catch (e) {
          request.logger[level]('app', 'Cache payload unreadable, recomputing', { exception: e });
        }
        return HttpResponse.html('<html><body>all good</body></html>');
      };
    const app = profiledApp({
      routes: [
        { name: 'handled_warning', path: '/handled-warning', controller: handled('warning') },
        { name: 'handled_error', path: '/handled-error', controller: handled('error') },
        { name: 'handled_redirect', path: '/handled-redirect', controller: (request: KernelRequest) => {
          request.logger.error('app', 'Lookup failed', { exception: new TypeError('no such item') });
          return HttpResponse.redirect('/elsewhere', 302);
        } },
      ],
    });
    for (const [path, status] of [['/handled-warning', 200], ['/handled-error', 200], ['/handled-redirect', 302]] as const) {
      const r = await get(app, path);
      assert.equal(r.status, status, path);
      const token = r.headers.get('x-debug-token')!;
      await profileOf(app, r);
      const json = await (await get(app, `/_profiler/${token}`, { headers: { accept: 'application/json' } })).json();
      assert.equal(json.exception, null, `${path}: no exception in the profile`);
      assert.ok(json.logs.some((l: { context: { exception?: unknown } }) => l.context.exception), `${path}: the record stays in the logs`);
      const toolbar = await (await get(app, `/_wdt/${token}`)).text();
      assert.ok(!toolbar.includes('data-irms-wdt="exception"'), `${path}: no exception block in the toolbar`);
      const page = await (await get(app, `/_profiler/${token}`)).text();
      assert.match(page, /id="pf-panel" data-panel="request"/, `${path}: the profile opens on the request panel`);
      assert.ok((await (await get(app, `/_profiler/${token}/exception`)).text()).includes('No exception was thrown'), path);
    }
  });

  test('an error answered by a kernel.exception listener ahead of the profiler\'s is still the profile\'s exception (from its log record)', async () => {
    const answerEarly = listener<'kernel.exception'>('App::answerEarly', 'test', (event) => {
      event.request.logger.error('app', 'Answered early: {message}', { message: event.throwable.message, exception: event.throwable });
      event.setResponse(HttpResponse.html('<html><body>sorry</body></html>', 503));
    });
    const app = profiledApp({
      routes: fixtureRoutes(),
      listeners: [{ hook: 'kernel.exception', listener: answerEarly, placement: { priority: 10 } }],
    });
    const r = await get(app, '/boom');
    assert.equal(r.status, 503);
    const p = await profileOf(app, r);
    assert.ok(!p.events.some((e) => e.listener === 'ProfilerListener::onKernelException'), 'the profiler\'s own listener was skipped');
    assert.equal(p.exception?.class, 'Error');
    assert.equal(p.exception?.message, 'Checkout failed');
    const toolbar = await (await get(app, `/_wdt/${p.token}`)).text();
    assert.ok(toolbar.includes('data-irms-wdt="exception"'));
  });
});

test('regression: a profile of a status Symfony has no text for showed "Whoops, looks like something went wrong." as its status text; RequestDataCollector shows none', async () => {
  const app = profiledApp({ routes: [
    { name: 'odd', path: '/odd', controller: () => new HttpResponse('odd', 299) },
    { name: 'teapot', path: '/teapot', controller: () => new HttpResponse('short and stout', 418) },
  ] });
  assert.equal((await profileOf(app, await get(app, '/odd'))).statusText, '');
  assert.equal((await profileOf(app, await get(app, '/teapot'))).statusText, 'I\'m a teapot');
});
