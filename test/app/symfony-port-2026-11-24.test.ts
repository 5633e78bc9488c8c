/**
 * Differences found by porting a small Symfony 5.4 blog (BlogController, subscribers, @Cache, @ParamConverter,
 * @IsGranted/@Security, @Template, redirects, login/logout, flashes) to irms-web. Each test asserts what Symfony
 * 5.4 answers; the Symfony class and method are named in the test.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp, HttpResponse, subscriberListeners, type ExceptionEvent } from '../../src/index.ts';

class AlreadySubscribed extends Error {}

/**
 * A Symfony ExceptionSubscriber ported as written: Symfony's ExceptionEvent::allowCustomResponseCode() is a
 * method (HttpKernel\Event\ExceptionEvent, since 4.4), and HttpKernel::handleThrowable() reads
 * isAllowingCustomResponseCode() to keep a non-error status.
 */
class NewsletterSubscriber {
  static getSubscribedEvents() {
    return { 'kernel.exception': ['onKernelException', 10] as [string, number] };
  }
  onKernelException(event: ExceptionEvent) {
    if (!(event.throwable instanceof AlreadySubscribed)) return;
    event.setResponse(HttpResponse.json({ subscribed: true }, 200));
    (event as unknown as { allowCustomResponseCode(): void }).allowCustomResponseCode();
  }
}

function app() {
  return createApp({
    env: 'prod',
    logSink: () => {},
    environment: {},
    routes: [{ name: 'subscribe', path: '/newsletter', methods: ['POST'], controller: () => { throw new AlreadySubscribed('already'); } }],
    listeners: subscriberListeners(new NewsletterSubscriber(), 'App\\EventSubscriber\\NewsletterSubscriber'),
  });
}

describe('Symfony 5.4 port (2026-11-24)', () => {
  test('regression: ExceptionEvent::allowCustomResponseCode() is a property, so a ported subscriber calling it is a 500', async () => {
    // Symfony: HttpKernel::handleThrowable keeps the 200 because $event->isAllowingCustomResponseCode() is true.
    const response = await app().fetch(new Request('http://localhost/newsletter', { method: 'POST' }));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { subscribed: true });
  });

  test('regression: ExceptionEvent has no isAllowingCustomResponseCode() (Symfony ExceptionEvent)', async () => {
    let seen: unknown = 'not called';
    const probe = createApp({
      env: 'prod',
      logSink: () => {},
      environment: {},
      routes: [{ name: 'boom', path: '/boom', controller: () => { throw new Error('x'); } }],
      listeners: [{ hook: 'kernel.exception', placement: { priority: 10 }, listener: { id: 'App\\Probe::onKernelException', role: 'probe', call(event: ExceptionEvent) {
        const e = event as unknown as { isAllowingCustomResponseCode?: () => boolean };
        seen = typeof e.isAllowingCustomResponseCode === 'function' ? e.isAllowingCustomResponseCode() : 'missing';
      } } }],
    });
    const response = await probe.fetch(new Request('http://localhost/boom'));
    assert.equal(response.status, 500);
    assert.equal(seen, false);
  });

  test('regression: events had no isMainRequest(), the check most ported Symfony subscribers open with (KernelEvent::isMainRequest)', async () => {
    const seen: boolean[] = [];
    const probe = createApp({
      env: 'prod',
      logSink: () => {},
      environment: {},
      routes: [{ name: 'page', path: '/page', controller: () => HttpResponse.text('page') }],
      listeners: [
        { hook: 'kernel.request', listener: { id: 'App\Probe::onKernelRequest', role: 'probe', call(event) { seen.push(event.isMainRequest()); } } },
        { hook: 'kernel.response', listener: { id: 'App\Probe::onKernelResponse', role: 'probe', call(event) { seen.push(event.isMainRequest()); } } },
      ],
    });
    assert.equal((await probe.fetch(new Request('http://localhost/page'))).status, 200);
    assert.deepEqual(seen, [true, true]);
  });
});

test('redirectToRoute(request, route, parameters, status) answers as AbstractController::redirectToRoute: the route\'s path, 302 unless told otherwise', async () => {
  const { redirectToRoute } = await import('../../src/index.ts');
  const probe = createApp({
    env: 'prod',
    logSink: () => {},
    environment: {},
    routes: [
      { name: 'post', path: '/blog/:slug', controller: () => HttpResponse.text('post') },
      { name: 'old', path: '/old/:slug', controller: (r) => redirectToRoute(r, 'post', { slug: r.attributes.get('slug'), ref: 'old' }, 301) },
      { name: 'go', path: '/go', controller: (r) => redirectToRoute(r, 'post', { slug: 'hello' }) },
    ],
  });
  const moved = await probe.fetch(new Request('http://localhost/old/hello-world'));
  assert.equal(moved.status, 301);
  assert.equal(moved.headers.get('location'), '/blog/hello-world?ref=old');
  const found = await probe.fetch(new Request('http://localhost/go'));
  assert.equal(found.status, 302);
  assert.equal(found.headers.get('location'), '/blog/hello');
  assert.match(await found.text(), /Redirecting to <a href="\/blog\/hello">/);
});
