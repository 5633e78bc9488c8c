/** What the session tells its store about the data it writes (see `SessionStore.write`). */
export interface SessionWriteInfo {
  /**
   * The data holds a logged-in member (a `_security_<context>` key). A bounded store should evict
   * such sessions last: otherwise anyone able to create anonymous sessions (cookie-less requests to a
   * page that writes the session) can push every member out of the store and log them all out.
   */
  member: boolean;
}

/**
 * Where sessions live between requests. A store keeps each session's data as an opaque string under
 * its id; methods may answer synchronously (the memory store) or with a promise (a Redis or database
 * store), and the session machinery awaits only when they do.
 *
 * Keeping logout final: a request that loaded the session before a logout may finish after it. The
 * session writes only data that changed, but a request that did change it still writes it back under
 * the id the logout destroyed. A store should therefore refuse writes to ids it destroyed (as the
 * memory store does: ids are 256-bit random and never reused, so a destroyed id can never belong to a
 * live session again), or serialize a session's requests (locking, as PHP's native handler does).
 */
export interface SessionStore {
  /** The data saved under `id`, or null when there is none (unknown, expired or destroyed). Refreshes its idle lifetime. */
  read(id: string): string | null | Promise<string | null>;
  /**
   * Saves `data` under `id`, replacing what was there, and refreshes its idle lifetime. `info` says
   * what the data holds so that a bounded store can choose what to evict (members last); a store that
   * never evicts by count may ignore it. A write to an id this store destroyed should be dropped.
   */
  write(id: string, data: string, info?: SessionWriteInfo): void | Promise<void>;
  /** Forgets `id` (logout, id rotation). Unknown ids are ignored. */
  destroy(id: string): void | Promise<void>;
  /**
   * Optional: refreshes the idle lifetime of an EXISTING `id`, never creating it. Called when a request
   * used the session without changing it (nothing is written then, so a request still in flight at
   * logout cannot re-create the destroyed id). A store whose `read` already refreshes the lifetime
   * (like the memory store) need not implement it.
   */
  touch?(id: string): void | Promise<void>;
}

export interface MemorySessionStoreOptions {
  /** Most sessions kept; sessions without a member go first, least recently used first. Default 10 000. */
  maxCount?: number;
  /** A session untouched for this long is gone; a destroyed id stays refused this long. Default 1 800 s. */
  idleSeconds?: number;
  /** Largest data of one session, in UTF-16 code units; a larger write throws. Default 64 KiB. */
  maxEntryLength?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Node<V> {
  readonly key: string;
  value: V;
  prev: Node<V> | null;
  next: Node<V> | null;
}

/**
 * Keys in last-use order (oldest first) with O(1) lookup, move-to-newest, removal and oldest. A Map
 * alone keeps insertion order, but V8 leaves deleted slots in place until it rehashes and every new
 * iterator walks over them from the front, so "remove the oldest" on a Map that is also refilled at
 * the back costs O(size) per call; the linked list avoids that.
 */
class LastUseList<V> {
  private readonly nodes = new Map<string, Node<V>>();
  private head: Node<V> | null = null;
  private tail: Node<V> | null = null;

  get size(): number {
    return this.nodes.size;
  }

  get(key: string): V | undefined {
    return this.nodes.get(key)?.value;
  }

  has(key: string): boolean {
    return this.nodes.has(key);
  }

  /** Adds `key` or replaces its value; either way it becomes the most recently used. */
  set(key: string, value: V): void {
    let node = this.nodes.get(key);
    if (node === undefined) {
      node = { key, value, prev: null, next: null };
      this.nodes.set(key, node);
    } else {
      node.value = value;
      this.unlink(node);
    }
    node.prev = this.tail;
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
  }

  delete(key: string): boolean {
    const node = this.nodes.get(key);
    if (node === undefined) return false;
    this.nodes.delete(key);
    this.unlink(node);
    return true;
  }

  /** The least recently used key and value, or null when empty. */
  oldest(): { readonly key: string; readonly value: V } | null {
    return this.head;
  }

  private unlink(node: Node<V>): void {
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = node.next = null;
  }
}

interface Entry {
  data: string;
  expiresAt: number;
}

/**
 * The default store: a bounded in-process map. Memory stays within `maxCount × maxEntryLength` (plus
 * at most `maxCount` destroyed ids) whatever the traffic, and every operation is O(1) amortized.
 *
 * - Sessions are kept in two lists in last-use order (a read or write moves an entry to the end):
 *   those holding a logged-in member and the others. Expired entries are swept from the front of both
 *   on every write.
 * - When the count bound is reached, sessions without a member are evicted first (least recently used
 *   first), so anonymous traffic, however heavy, cannot log members out. A member's session is evicted
 *   (least recently used member first) only when no other session is left but the one being written:
 *   the session just written is never the one evicted, since dropping it would silently lose the
 *   write (a visitor could never get a session, e.g. for a login form's CSRF token, once members fill
 *   the store).
 * - Destroyed ids are remembered for `idleSeconds` (at most `maxCount` of them, oldest dropped first)
 *   and a write to one is dropped: a request that loaded the session before a logout and changed it
 *   cannot bring the logged-out session back when it finishes.
 * - `read` refreshes the idle lifetime, so the store needs no `touch`.
 */
export class MemorySessionStore implements SessionStore {
  readonly maxCount: number;
  readonly idleMs: number;
  readonly maxEntryLength: number;
  /** Sessions holding a logged-in member, evicted only when nothing else is left. */
  private readonly members = new LastUseList<Entry>();
  /** All other sessions, evicted first. */
  private readonly guests = new LastUseList<Entry>();
  /** Destroyed ids → when they may be forgotten; destruction order is expiry order. */
  private readonly destroyed = new LastUseList<number>();
  private readonly now: () => number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.maxCount = Math.max(1, options.maxCount ?? 10_000);
    this.idleMs = Math.max(1, options.idleSeconds ?? 1800) * 1000;
    this.maxEntryLength = Math.max(2, options.maxEntryLength ?? 64 * 1024);
    this.now = options.now ?? Date.now;
  }

  /** Sessions currently kept (expired ones not swept yet included). */
  get size(): number {
    return this.members.size + this.guests.size;
  }

  read(id: string): string | null {
    const list = this.members.has(id) ? this.members : this.guests;
    const entry = list.get(id);
    if (entry === undefined) return null;
    const now = this.now();
    if (entry.expiresAt <= now) {
      list.delete(id);
      return null;
    }
    entry.expiresAt = now + this.idleMs;
    list.set(id, entry);
    return entry.data;
  }

  /** Stores `data`; dropped (not stored) when `id` was destroyed less than `idleSeconds` ago. */
  write(id: string, data: string, info?: SessionWriteInfo): void {
    if (data.length > this.maxEntryLength) throw new Error(`Session data of ${data.length} characters exceeds the store's limit of ${this.maxEntryLength}.`);
    const now = this.now();
    this.sweepDestroyed(now);
    if (this.destroyed.has(id)) return;
    const entry = { data, expiresAt: now + this.idleMs };
    if (info?.member) {
      this.guests.delete(id);
      this.members.set(id, entry);
    } else {
      this.members.delete(id);
      this.guests.set(id, entry);
    }
    this.sweep(now, id);
  }

  destroy(id: string): void {
    this.members.delete(id);
    this.guests.delete(id);
    const now = this.now();
    this.destroyed.set(id, now + this.idleMs);
    this.sweepDestroyed(now);
  }

  /**
   * Drops expired entries (at the front of each list), then evicts above the bound: the least recently
   * used session without a member, or, when the only one left is `current`, the least recently used
   * member.
   */
  private sweep(now: number, current: string): void {
    dropExpired(this.guests, now);
    dropExpired(this.members, now);
    while (this.size > this.maxCount) {
      const guestsToSpare = this.guests.has(current) ? 1 : 0;
      const list = this.guests.size > guestsToSpare ? this.guests : this.members;
      // The current entry is at the back of its list and that list has another entry, so the front is not it.
      list.delete(list.oldest()!.key);
    }
  }

  /** Forgets destroyed ids whose time is up and the oldest ones above `maxCount`. */
  private sweepDestroyed(now: number): void {
    for (let oldest = this.destroyed.oldest(); oldest !== null; oldest = this.destroyed.oldest()) {
      if (oldest.value > now && this.destroyed.size <= this.maxCount) break;
      this.destroyed.delete(oldest.key);
    }
  }
}

function dropExpired(list: LastUseList<Entry>, now: number): void {
  for (let oldest = list.oldest(); oldest !== null && oldest.value.expiresAt <= now; oldest = list.oldest()) list.delete(oldest.key);
}
