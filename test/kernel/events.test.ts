// The kernel's events as listeners use them: what setResponse and the throwable accept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, listener, type AnyListenerRegistration } from '../../src/index.ts';

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
