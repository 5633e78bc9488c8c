import type { EventOf, HookName } from './events.ts';

/**
 * One named step of a hook. `id` is `Class::method` after the Symfony listener it reproduces; it is
 * what the `event` log channel and the profiler show. `call` may return a promise; the kernel awaits
 * only when it does.
 */
export interface Listener<H extends HookName = HookName> {
  readonly id: string;
  readonly role: string;
  /**
   * Symfony-style priority: higher runs first. A listener registered without a placement is inserted at
   * this priority (0 when absent, Symfony's default); an inserted listener records the priority it was
   * placed at, which later `{ priority }` placements compare with.
   */
  readonly priority?: number;
  call(event: EventOf[H]): void | Promise<void>;
  /**
   * Production only (kernel.controller, kernel.controller_arguments): true when the listener provably
   * does nothing for requests matched to this route — its inputs are route options and attributes
   * the route does not have, and no user listener could set them. The app then leaves it out of that
   * route's controller hooks (app/controller-plan.ts); debug mode always calls it.
   */
  readonly idleFor?: (route: RouteFacts) => boolean;
}

/** What a route sets before the controller hooks run: its options, and the attributes it can set. */
export interface RouteFacts {
  readonly options: Readonly<Record<string, unknown>>;
  /** Its defaults' names and its path variables' names. */
  readonly attributes: ReadonlySet<string>;
}

/** The listener with its production idle rule (see `Listener.idleFor`). */
export function idleWhen<H extends HookName>(l: Listener<H>, idleFor: (route: RouteFacts) => boolean): Listener<H> {
  return { ...l, idleFor };
}

/** Idle rule: the route has neither the option (set and not false) nor the attribute. */
export function routeLacks(option: string | null, attribute: string | null): (route: RouteFacts) => boolean {
  return (route) => (option === null || !isSet(route.options[option])) && (attribute === null || !route.attributes.has(attribute));
}

export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false;
}

/** Where to insert a user listener into a hook. */
export type Placement =
  | { before: string }
  | { after: string }
  | { index: number }
  | { priority: number };

/** The listener arrays of every hook. Frozen arrays are built per app, so the hot path only iterates. */
export type HookTable = { [H in HookName]: Listener<H>[] };

export function emptyHookTable(): HookTable {
  return {
    'kernel.request': [],
    'kernel.controller': [],
    'kernel.controller_arguments': [],
    'kernel.view': [],
    'kernel.response': [],
    'kernel.finish_request': [],
    'kernel.exception': [],
    'kernel.terminate': [],
  };
}

/**
 * Why a `{ before }` / `{ after }` placement found no neighbour, with the ids it could have named: the
 * profiler's and the toolbar's exist in debug mode only, so a placement next to them built in dev and
 * failed in production with a message naming neither.
 */
function noNeighbour(id: string, target: string, list: readonly { id: string }[]): string {
  const ids = [...new Set(list.map((l) => l.id))];
  const debugOnly = /^(?:Profiler|WebDebugToolbar)Listener::/.test(target)
    ? ' The profiler and toolbar listeners exist in debug mode only: place it next to another listener, or by { priority }, which does not depend on the mode.'
    : '';
  return `No listener "${target}" to insert "${id}" next to; this hook has ${ids.length ? ids.map((i) => `"${i}"`).join(', ') : 'no listeners'}.${debugOnly}`;
}

/**
 * Inserts a listener without disturbing the relative order of the others. By priority (and with no
 * placement, at the listener's own priority, 0 when it has none): right after the last listener whose
 * priority is >= p (listeners without one count as 0), like Symfony's dispatcher — higher first, equal
 * priorities in registration order. The inserted listener carries the priority it was placed at; one
 * placed before, after or at an index takes the priority of its neighbour, so the hook stays sorted and
 * a later `{ priority }` placement lands where Symfony would put it.
 */
export function insertListener<H extends HookName>(list: Listener<H>[], listener: Listener<H>, placement?: Placement): void {
  // Checked when the app is built: a listener without `call` would make every request a 500, and a
  // placement of NaN would put it first, ahead of the request's validation.
  if (listener === null || typeof listener !== 'object' || typeof listener.call !== 'function' || typeof listener.id !== 'string' || listener.id === '') {
    throw new TypeError(`A listener must be an object with a non-empty string id and a call(event) function, got ${listener === null ? 'null' : typeof listener === 'object' ? `{ id: ${JSON.stringify((listener as { id?: unknown }).id)} }` : typeof listener}.`);
  }
  if (placement !== undefined && placement !== null) {
    const keys = Object.keys(placement);
    if (keys.length !== 1 || !['index', 'priority', 'before', 'after'].includes(keys[0]!)) {
      throw new TypeError(`Listener "${listener.id}": a placement is exactly one of { index }, { priority }, { before } or { after }, got { ${keys.join(', ')} }.`);
    }
    const value = (placement as Record<string, unknown>)[keys[0]!];
    if ((keys[0] === 'index' && !(Number.isInteger(value) && (value as number) >= 0)) || (keys[0] === 'priority' && !Number.isFinite(value))) {
      throw new TypeError(`Listener "${listener.id}": placement ${keys[0]} must be ${keys[0] === 'index' ? 'an integer >= 0' : 'a finite number'}, got ${JSON.stringify(value)}.`);
    }
    if ((keys[0] === 'before' || keys[0] === 'after') && typeof value !== 'string') {
      throw new TypeError(`Listener "${listener.id}": placement ${keys[0]} must be a listener id, got ${JSON.stringify(value)}.`);
    }
  }
  // No placement is Symfony's default: the listener's own priority, else 0 (not the end of the hook,
  // which on kernel.exception would be after the listener that renders the error and stops the hook).
  const where = placement ?? { priority: listener.priority ?? 0 };
  if ('priority' in where) {
    let at = 0;
    for (let i = 0; i < list.length; i++) if ((list[i].priority ?? 0) >= where.priority) at = i + 1;
    list.splice(at, 0, withPriority(listener, where.priority));
    return;
  }
  let at: number;
  if ('index' in where) {
    at = Math.max(0, Math.min(where.index, list.length));
  } else {
    const target = 'before' in where ? where.before : where.after;
    const found = 'before' in where ? list.findIndex((l) => l.id === target) : findLastIndex(list, (l) => l.id === target);
    if (found < 0) throw new Error(noNeighbour(listener.id, target, list));
    at = 'before' in where ? found : found + 1;
  }
  // The neighbour it displaces, else the one it follows: either keeps the priorities non-increasing.
  const neighbour = list[at] ?? list[at - 1];
  list.splice(at, 0, neighbour ? withPriority(listener, neighbour.priority ?? 0) : listener);
}

/**
 * The listener carrying `priority`. A new object rather than a spread: a listener may be a class
 * instance whose `call` and `id` live on its prototype, and `call` stays bound to the caller's object.
 */
function withPriority<H extends HookName>(l: Listener<H>, priority: number): Listener<H> {
  if ((l.priority ?? 0) === priority) return l;
  const placed: Listener<H> = { id: l.id, role: l.role, priority, call: l.call.bind(l) };
  return l.idleFor ? { ...placed, idleFor: l.idleFor } : placed;
}

/**
 * A hook's table with listeners one request registered (the firewall's ExceptionListener), each placed
 * by its priority after the listeners of the same priority, as Symfony's dispatcher places a listener
 * added during the request: an application listener placed above it still runs first.
 */
export function withRequestListeners<H extends HookName>(table: readonly Listener<H>[], added: readonly Listener<H>[]): Listener<H>[] {
  const merged = table.slice();
  for (const l of added) {
    const priority = l.priority ?? 0;
    let at = 0;
    for (let i = 0; i < merged.length; i++) if ((merged[i].priority ?? 0) >= priority) at = i + 1;
    merged.splice(at, 0, l);
  }
  return merged;
}

function findLastIndex<T>(list: T[], pred: (v: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (pred(list[i])) return i;
  return -1;
}

/** One traced listener call: the `event` log channel and the profiler read these. */
export interface ListenerCall {
  hook: HookName;
  listener: string;
  role: string;
  /** Milliseconds since the request started. */
  startMs: number;
  durationMs: number;
}

/** Builds a listener value; `call` is usually a bound method of a listener class. */
export function listener<H extends HookName>(id: string, role: string, call: (event: EventOf[H]) => void | Promise<void>, priority?: number): Listener<H> {
  return { id, role, call, priority };
}

/**
 * Whether `value` is a promise of any realm or library: an object or function with a `then` method. A
 * promise of another realm (node:vm) or library (Bluebird, a query builder) is no `instanceof Promise`;
 * what a controller, a template or a predicate returns is awaited as `await` would.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as Partial<PromiseLike<unknown>>).then === 'function';
}
