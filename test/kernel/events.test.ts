// The kernel's events as listeners use them: what setResponse and the throwable accept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, listener, type AnyListenerRegistration, type AppOptions } from '../../src/index.ts';

function appWith(debug: boolean, registration: AnyListenerRegistration) {
  const lines: string[] = [];
  const app = createApp({
    debug,
    env: debug ? 'dev' : 'prod',
    environment: {},
    logSink: (l) => lines.push(l),
    routes: [
      { name: 'fails', path: '/fails', controller: () => { throw new Error('controller failed'); } },
      { name: 'data', path: '/data', controller: () => ({ a: 1 }) },
    ],
    listeners: [registration],
  });
  return { lines, get: (path: string) => app.fetch(new Request(`http://localhost${path}`)) };
}

test('regression: a Fetch Response given to setResponse in kernel.exception made app.fetch reject ("response.isRedirect is not a function"); every hook takes one', async () => {
  const fetchAnswer = () => new Response('maintenance', { status: 503, headers: { 'retry-after': '60' } });
  for (const debug of [false, true]) {
    const { get } = appWith(debug, { hook: 'kernel.exception', listener: listener<'kernel.exception'>('App::maintenance', 'm', (e) => e.setResponse(fetchAnswer())), placement: { index: 0 } });
    const response = await get('/fails');
    assert.equal(response.status, 503, `debug=${debug}`);
    assert.equal(response.headers.get('retry-after'), '60');
    assert.equal(response.headers.get('x-robots-tag'), 'noindex', 'then through kernel.response like any error response');
    assert.equal(await response.text(), 'maintenance');
  }
  for (const hook of ['kernel.request', 'kernel.view', 'kernel.response'] as const) {
    const registration = { hook, listener: listener<typeof hook>(`App::${hook}`, 'm', (e: { setResponse(r: Response): void }) => e.setResponse(fetchAnswer())), placement: { index: 0 } } as AnyListenerRegistration;
    const response = await appWith(false, registration).get('/data');
    assert.equal(response.status, 503, hook);
    assert.equal(await response.text(), 'maintenance', hook);
  }
});

test('regression: a listener setting event.throwable to a string or null got a page, an X-Debug-Exception header and a log line that each described it differently', async () => {
  const cases: [unknown, string][] = [
    ['just a string', 'just a string'],
    [null, 'Non-error value thrown: null'],
  ];
  for (const [value, message] of cases) {
    const { get, lines } = appWith(true, {
      hook: 'kernel.exception',
      listener: listener<'kernel.exception'>('App::replace', 'r', (e) => { e.throwable = value as Error; }),
      placement: { index: 0 },
    });
    const response = await get('/fails');
    assert.equal(response.status, 500);
    assert.equal(decodeURIComponent(response.headers.get('x-debug-exception') ?? ''), message);
    assert.ok((await response.text()).includes(`<title>${message} (500 Internal Server Error)</title>`), message);
    const logged = lines.filter((l) => l.includes('Uncaught Exception'));
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, new RegExp(`request\\.CRITICAL: Uncaught Exception NonErrorThrown: "${message}" at `));
  }
});

/** Streams that write their name forever, each recording its name in `cancelled` when cancelled. */
function cancelRecorder() {
  const cancelled: string[] = [];
  const stream = (name: string) => new ReadableStream<Uint8Array>({
    pull: (c) => c.enqueue(new TextEncoder().encode(name)),
    cancel: () => void cancelled.push(name),
  });
  return { cancelled, stream };
}

/** A production app with no log output. */
function prodApp(options: Pick<AppOptions, 'routes' | 'listeners'>) {
  return createApp({ debug: false, env: 'prod', environment: {}, logSink: () => {}, ...options });
}

test('regression: a kernel.response listener replacing a streamed response left the old stream open (a file or an upstream connection held until collected); it is cancelled, unless the new response carries it on', async () => {
  const { cancelled, stream } = cancelRecorder();
  const streamed = (name: string) => new Response(stream(name).pipeThrough(new TransformStream()), { status: 200 });
  const app = prodApp({
    routes: [
      { name: 'replaced', path: '/replaced', controller: () => new Response(stream('replaced')) },
      { name: 'carried', path: '/carried', controller: () => new Response(stream('carried')) },
      { name: 'piped', path: '/piped', controller: () => streamed('piped') },
    ],
    listeners: [{
      hook: 'kernel.response',
      listener: listener<'kernel.response'>('App::replace', 'r', (e) => {
        const body = e.response.body as ReadableStream<Uint8Array>;
        if (e.request.pathInfo === '/replaced') e.setResponse(new Response('maintenance', { status: 503 }));
        if (e.request.pathInfo === '/carried') e.setResponse(new Response(body, { headers: { 'x-carried': '1' } }));
        if (e.request.pathInfo === '/piped') e.setResponse(new Response(body.pipeThrough(new TransformStream({ transform: (chunk, c) => c.enqueue(chunk.slice(0, 1)) }))));
      }),
    }],
  });
  const replaced = await app.fetch(new Request('http://localhost/replaced'));
  assert.equal(replaced.status, 503);
  assert.equal(await replaced.text(), 'maintenance');
  await new Promise((r) => setTimeout(r, 1));
  assert.deepEqual(cancelled, ['replaced']);

  const carried = await app.fetch(new Request('http://localhost/carried'));
  assert.equal(carried.headers.get('x-carried'), '1');
  const reader = carried.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), 'carried', 'the stream the new response carries is read, not cancelled');
  await reader.cancel();

  const piped = await app.fetch(new Request('http://localhost/piped'));
  const pipedReader = piped.body!.getReader();
  assert.equal(new TextDecoder().decode((await pipedReader.read()).value), 'p', 'a stream piped into the new response flows');
  await pipedReader.cancel();
});

test('regression: a streamed answer whose kernel.response or kernel.finish_request listener failed was dropped for the error page with its stream left open; it is cancelled', async () => {
  const { cancelled, stream } = cancelRecorder();
  const failOn = (hook: 'kernel.response' | 'kernel.finish_request', path: string): AnyListenerRegistration => ({
    hook,
    listener: listener(`App::fail${hook}`, 'fails', async (e: { request: { pathInfo: string } }) => {
      if (e.request.pathInfo === path) throw new Error(`${hook} failed`);
    }),
  } as AnyListenerRegistration);
  const app = prodApp({
    routes: [
      { name: 'a', path: '/response', controller: () => new Response(stream('response')) },
      { name: 'b', path: '/finish', controller: () => new Response(stream('finish')) },
    ],
    listeners: [failOn('kernel.response', '/response'), failOn('kernel.finish_request', '/finish')],
  });
  for (const path of ['/response', '/finish']) {
    const r = await app.fetch(new Request(`http://localhost${path}`));
    assert.equal(r.status, 500, path);
    await r.text();
  }
  await new Promise((r) => setTimeout(r, 1));
  assert.deepEqual(cancelled.sort(), ['finish', 'response']);
});
