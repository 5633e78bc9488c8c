import { HOOKS, type HookName } from './events.ts';
import type { AnyListenerRegistration } from '../app/create-app.ts';

/**
 * What Symfony's EventSubscriberInterface::getSubscribedEvents answers: per event, a method name, a
 * method and its priority, or a list of those.
 */
export type SubscribedEvents = Partial<Record<HookName, string | [method: string, priority?: number] | [method: string, priority?: number][]>>;

/**
 * The `listeners` entries of an event subscriber, as Symfony's EventDispatcher::addSubscriber registers
 * them: each subscribed method a listener of its hook at its priority (0 when none), named
 * `<Class>::<method>` as Symfony names them in logs and the profiler. A ported subscriber keeps its shape:
 *
 * ```ts
 * class VersionSubscriber {
 *   static getSubscribedEvents() { return { 'kernel.response': ['onKernelResponse', -10] }; }
 *   onKernelResponse(event: ResponseEvent) { event.response.headers.set('x-version', '1.4'); }
 * }
 * createApp({ listeners: [...subscriberListeners(new VersionSubscriber())] });
 * ```
 *
 * `getSubscribedEvents` may also return a Map, or yield `[event, entry]` pairs, as PHP's foreach reads a
 * generator. Refused when the app is built rather than on a request: an event that is no kernel hook, a
 * method the subscriber does not have, a priority that is no finite number, a promise of the events.
 */
export function subscriberListeners(subscriber: object, name?: string): AnyListenerRegistration[] {
  if (subscriber === null || typeof subscriber !== 'object') throw new TypeError(`subscriberListeners() takes a subscriber object, got ${subscriber === null ? 'null' : typeof subscriber}.`);
  const methods = subscriber as Record<string, unknown>;
  const owner = (subscriber.constructor as { getSubscribedEvents?: unknown } | undefined)?.getSubscribedEvents !== undefined ? subscriber.constructor : subscriber;
  const getSubscribedEvents = (owner as { getSubscribedEvents?: unknown }).getSubscribedEvents;
  // Symfony names a listener by its class (`App\EventSubscriber\VersionSubscriber`): `name` gives the namespace JS lacks.
  const label = name || (typeof subscriber.constructor === 'function' && subscriber.constructor !== Object ? subscriber.constructor.name : '') || 'subscriber';
  if (typeof getSubscribedEvents !== 'function') throw new TypeError(`${label} has no getSubscribedEvents() (a static method of its class, or its own).`);
  const subscribed = getSubscribedEvents.call(owner) as unknown;
  if (subscribed === null || typeof subscribed !== 'object') throw new TypeError(`${label}::getSubscribedEvents() must return an object of events, got ${subscribed === null ? 'null' : typeof subscribed}.`);
  // Read as an object, a promise, a Map or a generator has no own keys: the subscriber registered nothing, without a word.
  if (typeof (subscribed as { then?: unknown }).then === 'function') throw new TypeError(`${label}::getSubscribedEvents() returned a promise: it must return its events as they are (not async).`);
  const out: AnyListenerRegistration[] = [];
  for (const [hook, spec] of Symbol.iterator in subscribed ? pairs(subscribed as Iterable<unknown>, label) : Object.entries(subscribed)) {
    if (!(HOOKS as readonly string[]).includes(hook)) throw new Error(`${label} subscribes to "${hook}", which is no kernel hook (${HOOKS.join(', ')}).`);
    for (const [method, priority] of entries(spec, label, hook)) {
      const call = methods[method];
      if (typeof call !== 'function') throw new Error(`${label} subscribes to "${hook}" with "${method}", which it has no method of.`);
      out.push({
        hook: hook as HookName,
        listener: { id: `${label}::${method}`, role: `${label} ${method}`, call: (event: unknown) => call.call(subscriber, event) },
        placement: { priority },
      } as AnyListenerRegistration);
    }
  }
  return out;
}

/** The events of an iterable answer (PHP's foreach takes a generator too): a Map, or [event, entry] pairs. */
function pairs(subscribed: Iterable<unknown>, label: string): [string, unknown][] {
  return Array.from(subscribed, (pair) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') throw new TypeError(`${label}::getSubscribedEvents() must give [event, method or [method, priority]] pairs when it returns a Map or an iterable, got ${JSON.stringify(pair)}.`);
    return pair as [string, unknown];
  });
}

/** The [method, priority] pairs of one event's entry: `'m'`, `['m', 10]` or `[['m1', 10], ['m2']]`. */
function entries(spec: unknown, label: string, hook: string): [string, number][] {
  const invalid = () => new Error(`${label} subscribes to "${hook}" with ${JSON.stringify(spec)}: expected a method name, [method, priority] or a list of them.`);
  if (typeof spec === 'string') return [[spec, 0]];
  if (!Array.isArray(spec) || spec.length === 0) throw invalid();
  const list = typeof spec[0] === 'string' ? [spec] : spec;
  return list.map((item: unknown): [string, number] => {
    if (!Array.isArray(item) || typeof item[0] !== 'string' || item.length > 2) throw invalid();
    const priority = item[1] ?? 0;
    if (typeof priority !== 'number' || !Number.isFinite(priority)) throw invalid();
    return [item[0], priority];
  });
}
