/**
 * Symfony's FlashBag (the default in 5.4, not the auto-expiring one): messages by type, kept in the
 * session until read with `get` or `all`. They live in the session under FLASHES_KEY, which
 * `session.all()` and `session.clear()` leave alone, as Symfony keeps flashes in a bag of their own
 * beside the attributes. The key is reserved: unlike Symfony's separate bags, `session.get`, `has`,
 * `set` and `remove` of `_symfony_flashes` reach the flashes themselves.
 */
export const FLASHES_KEY = '_symfony_flashes';

/** The session operations the bag needs (the flash key only; no attribute is touched). */
export interface FlashStorage {
  readFlashes(): Record<string, unknown[]>;
  writeFlashes(flashes: Record<string, unknown[]>): void;
}

export class FlashBag {
  constructor(private readonly storage: FlashStorage) {}

  /** Adds a message of `type` (`success`, `error`, …). Values must survive JSON, as every session value. */
  add(type: string, message: unknown): void {
    const flashes = this.storage.readFlashes();
    (flashes[type] ??= []).push(message);
    this.storage.writeFlashes(flashes);
  }

  /** The messages of `type`, left in place; `fallback` when it has none (an empty list too, as FlashBag::has reads it). */
  peek(type: string, fallback: unknown[] = []): unknown[] {
    const messages = this.storage.readFlashes()[type];
    return messages !== undefined && messages.length > 0 ? messages : fallback;
  }

  peekAll(): Record<string, unknown[]> {
    return this.storage.readFlashes();
  }

  /** The messages of `type`, removed: shown once. `fallback` when it has none, as peek. */
  get(type: string, fallback: unknown[] = []): unknown[] {
    const flashes = this.storage.readFlashes();
    const messages = flashes[type];
    if (messages === undefined || messages.length === 0) return fallback;
    delete flashes[type];
    this.storage.writeFlashes(flashes);
    return messages;
  }

  /** Every message by type, removed. */
  all(): Record<string, unknown[]> {
    const flashes = this.storage.readFlashes();
    if (Object.keys(flashes).length > 0) this.storage.writeFlashes({});
    return flashes;
  }

  /** Replaces the messages of `type` (one message or a list; null is none, as PHP's `(array) null`). */
  set(type: string, messages: unknown): void {
    const flashes = this.storage.readFlashes();
    flashes[type] = messageList(messages);
    this.storage.writeFlashes(flashes);
  }

  /** Replaces every message; each type takes one message or a list, as `set` does. */
  setAll(messages: Record<string, unknown[]>): void {
    const flashes: Record<string, unknown[]> = Object.create(null);
    for (const type of Object.keys(messages)) flashes[type] = messageList(messages[type]);
    this.storage.writeFlashes(flashes);
  }

  /** True when `type` has at least one message (FlashBag::has: set and not empty). */
  has(type: string): boolean {
    const messages = this.storage.readFlashes()[type];
    return messages !== undefined && messages.length > 0;
  }

  keys(): string[] {
    return Object.keys(this.storage.readFlashes());
  }

  /** Every message, removed (FlashBag::clear returns what `all` does). */
  clear(): Record<string, unknown[]> {
    return this.all();
  }
}

/** PHP's `(array) $messages` for a type's messages: a list is copied, null is none, anything else is one message. */
function messageList(messages: unknown): unknown[] {
  return Array.isArray(messages) ? [...messages] : messages === null || messages === undefined ? [] : [messages];
}

/** The stored flashes as a fresh null-prototype record of arrays; anything else stored there reads as none. */
export function flashesOf(stored: unknown): Record<string, unknown[]> {
  const flashes: Record<string, unknown[]> = Object.create(null);
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return flashes;
  for (const type of Object.keys(stored)) {
    const messages = (stored as Record<string, unknown>)[type];
    flashes[type] = Array.isArray(messages) ? [...messages] : [messages];
  }
  return flashes;
}
