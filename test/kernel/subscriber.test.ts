import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, HttpResponse, subscriberListeners, type ExceptionEvent, type ResponseEvent } from '../../src/index.ts';

class Conflict extends Error {}

/** An EventSubscriber as Symfony writes one: static getSubscribedEvents, instance methods. */
class ApiSubscriber {
  calls: string[] = [];
  static getSubscribedEvents() {
    return {
      'kernel.response': [['addVersion', 10], ['addTiming', -10]],
      'kernel.exception': 'onConflict',
    };
  }
  addVersion(event: ResponseEvent) {
    this.calls.push('version');
    event.response.headers.set('x-version', '1.4');
  }
  addTiming(event: ResponseEvent) {
    this.calls.push('timing');
    event.response.headers.set('x-order', this.calls.join(','));
  }
  onConflict(event: ExceptionEvent) {
    if (event.throwable instanceof Conflict) event.setResponse(HttpResponse.json({ error: event.throwable.message }, 409));
  }
}

test('an EventSubscriber ported from Symfony registers each subscribed method at its priority, under Symfony\'s listener name', async () => {
  const subscriber = new ApiSubscriber();
  const logs: string[] = [];
  const app = createApp({
    env: 'dev',
    debug: true,
    environment: {},
    logLevel: 'debug',
    logSink: (line) => void logs.push(line),
    routes: [
      { name: 'ok', path: '/ok', controller: () => HttpResponse.text('ok') },
      { name: 'taken', path: '/taken', controller: () => { throw new Conflict('already taken'); } },
    ],
    listeners: subscriberListeners(subscriber, 'App\\EventSubscriber\\ApiSubscriber'),
  });
  const ok = await app.fetch(new Request('http://localhost/ok'));
  assert.equal(ok.headers.get('x-version'), '1.4');
  assert.equal(ok.headers.get('x-order'), 'version,timing', 'priority 10 before -10');
  assert.ok(logs.some((l) => l.includes('Notified event "kernel.response" to listener "App\\EventSubscriber\\ApiSubscriber::addVersion"')), 'named as Symfony names it');
  const taken = await app.fetch(new Request('http://localhost/taken', { headers: { accept: 'application/json' } }));
  assert.equal(taken.status, 409);
  assert.deepEqual(await taken.json(), { error: 'already taken' });
});

test('a subscriber\'s own getSubscribedEvents works too, and mistakes are refused when the app is built', () => {
  const plain = { getSubscribedEvents: () => ({ 'kernel.request': 'onRequest' }), onRequest() {} };
  assert.equal(subscriberListeners(plain).length, 1);
  assert.equal(subscriberListeners(plain)[0]!.listener.id, 'subscriber::onRequest');
  const cases: [object, RegExp][] = [
    [{ getSubscribedEvents: () => ({ 'kernel.responses': 'x' }), x() {} }, /"kernel\.responses", which is no kernel hook/],
    [{ getSubscribedEvents: () => ({ 'kernel.response': 'missing' }) }, /with "missing", which it has no method of/],
    [{ getSubscribedEvents: () => ({ 'kernel.response': ['x', 'high'] }), x() {} }, /expected a method name, \[method, priority\]/],
    [{}, /has no getSubscribedEvents\(\)/],
  ];
  for (const [subscriber, message] of cases) assert.throws(() => subscriberListeners(subscriber), message);
});

test('regression: a getSubscribedEvents() returning a Map, yielding its events or declared async registered no listener at all, without a word; a Map and a generator now subscribe, a promise is refused', async () => {
  class MapSubscriber {
    static getSubscribedEvents() { return new Map<string, unknown>([['kernel.response', ['addVersion', 5]]]); }
    addVersion(event: ResponseEvent) { event.response.headers.set('x-version', 'map'); }
  }
  class YieldingSubscriber {
    static *getSubscribedEvents() { yield ['kernel.response', 'addRegion'] as const; }
    addRegion(event: ResponseEvent) { event.response.headers.set('x-region', 'eu'); }
  }
  class AsyncSubscriber {
    static async getSubscribedEvents() { return { 'kernel.response': 'onResponse' }; }
    onResponse() {}
  }
  const app = createApp({
    env: 'prod',
    debug: false,
    environment: {},
    logSink: () => {},
    routes: [{ name: 'ok', path: '/ok', controller: () => HttpResponse.text('ok') }],
    listeners: [...subscriberListeners(new MapSubscriber()), ...subscriberListeners(new YieldingSubscriber())],
  });
  const ok = await app.fetch(new Request('http://localhost/ok'));
  assert.equal(ok.headers.get('x-version'), 'map');
  assert.equal(ok.headers.get('x-region'), 'eu');
  assert.throws(() => subscriberListeners(new AsyncSubscriber()), /AsyncSubscriber::getSubscribedEvents\(\) returned a promise/);
  assert.throws(() => subscriberListeners({ getSubscribedEvents: () => new Map([['kernel.response', 'x']]).keys(), x() {} }), /must give \[event, method or \[method, priority\]\] pairs/);
});
