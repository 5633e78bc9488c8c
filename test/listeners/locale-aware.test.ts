import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type LocaleAware, type RouteDefinition } from '../../src/index.ts';
import { gate, send, testApp } from '../pipeline/harness.ts';

test('regression: a request finishing reset locale-aware services to the default while a later-routed request was still in flight', async () => {
  const translator: LocaleAware & { locale: string } = { locale: 'unset', setLocale(locale) { this.locale = locale; } };
  const entered = new Map<string, ReturnType<typeof gate>>();
  const released = new Map<string, ReturnType<typeof gate>>();
  for (const locale of ['fr', 'de', 'it']) {
    entered.set(locale, gate());
    released.set(locale, gate());
  }
  const routes: RouteDefinition[] = [
    { name: 'held', path: '/:_locale/held', controller: async (r) => {
      entered.get(r.locale)!.open();
      await released.get(r.locale)!.opened;
      return HttpResponse.json({ request: r.locale, translator: translator.locale });
    } },
  ];
  const { app } = testApp({ routes, localeAware: [translator], env: 'prod', debug: false });
  const seen = async (response: Promise<Response>) => (await response).json();
  // Routed in this order, all three held in their controllers.
  const pending = new Map<string, Promise<Response>>();
  for (const locale of ['fr', 'de', 'it']) {
    pending.set(locale, send(app, `/${locale}/held`));
    await entered.get(locale)!.opened;
  }
  released.get('it')!.open();
  assert.deepEqual(await seen(pending.get('it')!), { request: 'it', translator: 'it' });
  // `it` finished: the most recently routed request still in flight is `de`.
  released.get('fr')!.open();
  assert.deepEqual(await seen(pending.get('fr')!), { request: 'fr', translator: 'de' });
  released.get('de')!.open();
  assert.deepEqual(await seen(pending.get('de')!), { request: 'de', translator: 'de' });
  assert.equal(translator.locale, 'en', 'nothing in flight: the default locale');
});

test('regression: a request answered without kernel.finish_request (an exception listener that throws) held the locale-aware services on its locale between all later requests', async () => {
  const translator: LocaleAware & { locale: string } = { locale: 'unset', setLocale(locale) { this.locale = locale; } };
  const routes: RouteDefinition[] = [
    { name: 'broken', path: '/:_locale/broken', controller: () => { throw new Error('controller failed'); } },
    { name: 'page', path: '/:_locale/page', controller: (r) => HttpResponse.text(r.locale) },
  ];
  const { app } = testApp({
    routes,
    localeAware: [translator],
    env: 'prod',
    debug: false,
    listeners: [{ hook: 'kernel.exception', placement: { priority: 10 }, listener: { id: 'App\\EventListener\\BrokenListener::onKernelException', role: 'broken', call() { throw new Error('listener failed too'); } } }],
  });
  const broken = await send(app, '/fr/broken');
  assert.equal(broken.status, 500);
  assert.equal(translator.locale, 'fr', 'Symfony skips kernel.finish_request on this path');
  const page = await send(app, '/de/page');
  assert.equal(await page.text(), 'de');
  assert.equal(translator.locale, 'en', 'nothing in flight after the next request: the default locale');
});
