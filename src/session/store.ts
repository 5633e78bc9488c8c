/** What the session tells its store about the data it writes (see `SessionStore.write`). */
export interface SessionWriteInfo {
  /**
   * The data holds a logged-in member (a `_security_<context>` key). A bounded store should evict
   * such sessions last: otherwise anyone able to create anonymous sessions (cookie-less requests to a
   * page that writes the session) can push every member out of the store and log them all out.
   */
  member: boolean;
  /**
   * The id of the member the data holds (of the first `_security_<context>` key, when it has a string
   * `memberId`). A bounded store should keep only so many sessions per member: one account logging
   * in over and over (or replaying its remember-me cookie without the session cookie) creates a member
   * session each time, and would otherwise push every other member out once members fill the store.
   */
  owner?: string;
  /**
   * The id was generated during this request (a new session, or the new id of a rotation): the only
   * kind of write that may create an entry. A write with `created: false` is to an id the request
   * loaded, and must be dropped when the store no longer holds that id (destroyed, expired or
   * evicted meanwhile): it comes from a request that was in flight when the session went away.
   */
  created: boolean;
  /**
   * For a rotation (login, logout): the id this one replaces. A store that remembers which id replaced
   * which can destroy the first replacement when the same id is rotated a second time (two
   * concurrent logins on one session), so only one of them stays authenticated.
   */
  replaces?: string;
}

/** What `SessionStore.update`'s callback answers: the data to keep under the id, with its write info. */
export interface SessionUpdate {
  data: string;
  info: SessionWriteInfo;
}

/**
 * Where sessions live between requests. A store keeps each session's data as an opaque string under
 * its id; methods may answer synchronously (the memory store) or with a promise (a Redis or database
 * store), and the session machinery awaits only when they do.
 *
 * Rules for store authors:
 * - Keeping logout final. A request that loaded the session before a logout (or before it expired or
 *   was evicted) may finish after it, and write back. `write` must never re-create an id it does not
 *   hold unless `info.created` is true: ids are 256-bit random and never reused, so an id that was
 *   generated during the request is the only one that may legitimately be new. A store that cannot
 *   tell whether it holds an id atomically should also refuse writes to ids it destroyed recently (the
 *   memory store does both), or serialize a session's requests (locking, as PHP's native handler does).
 * - Concurrent requests on one session. Without `update`, a request that changed the session writes
 *   the whole session as it saw it, so of two concurrent requests the one that saves last wins and the
 *   other's changes are lost. With `update` (atomic on the store's side: a compare-and-set, a
 *   transaction, a Lua script), the session applies only the keys its request set or removed onto the
 *   data stored at that moment. The memory store has it.
 */
export interface SessionStore {
  /** The data saved under `id`, or null when there is none (unknown, expired or destroyed). Refreshes its idle lifetime. */
  read(id: string): string | null | Promise<string | null>;
  /**
   * Saves `data` under `id`, replacing what was there, and refreshes its idle lifetime. `info` says
   * what the data holds so that a bounded store can choose what to evict (members last), and whether
   * the write may create the id: when `info.created` is false and the store does not hold `id`, the
   * write must be dropped (see the rules above).
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
  /**
   * Optional, atomic: when the store holds `id`, replaces its data with `apply(current)` (or destroys
   * it when that is null) with no other write to `id` in between; when it does not hold `id`, does
   * nothing (never creates it, and never calls `apply`). Used instead of `write` when a request
   * changed a session it loaded, so concurrent requests on one session keep each other's changes.
   */
  update?(id: string, apply: (current: string) => SessionUpdate | null): void | Promise<void>;
}

export interface MemorySessionStoreOptions {
  /** Most sessions kept; sessions without a member go first, least recently used first. Default 10 000. */
  maxCount?: number;
  /**
   * Most data kept, all sessions together, counted as 2 bytes per UTF-16 code unit (what a string
   * takes at worst); evicted as for `maxCount`. Default 64 MiB.
   */
  maxBytes?: number;
  /**
   * Most sessions kept for one member (`info.owner`); a member's least recently used session makes room
   * for its newest one. So one account, however often it logs in, holds this many places in the
   * store and cannot push other members out. Default 32 (at most `maxCount`).
   */
  maxSessionsPerMember?: number;
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
  /** `info.owner` of the write that stored it ('' for none). */
  owner: string;
}

interface Destroyed {
  /** When the id may be forgotten. */
  until: number;
  /** The id that replaced it in a rotation (login), so that a second rotation can destroy it. */
  successor: string | null;
}

/** What a session's data counts toward `maxBytes`: V8 keeps a string in one or two bytes per code unit. */
function sizeOf(data: string): number {
  return data.length * 2;
}

/**
 * The default store: a bounded in-process map. Memory stays within `maxBytes` of data over at most
 * `maxCount` sessions (plus at most `maxCount` destroyed ids) whatever the traffic, and every
 * operation is O(1) amortized.
 *
 * - Sessions are kept in two lists in last-use order (a read or write moves an entry to the end):
 *   those holding a logged-in member and the others. Expired entries are swept from the front of both
 *   on every write.
 * - When the count or size bound is reached, sessions without a member are evicted first (least
 *   recently used first), so anonymous traffic, however heavy, cannot log members out. A member's
 *   session is evicted (least recently used member first) only when no other session is left but the
 *   one being written: the session just written is never the one evicted, since dropping it would
 *   silently lose the write (a visitor could never get a session, e.g. for a login form's CSRF token,
 *   once members fill the store).
 * - One member (`info.owner`) keeps at most `maxSessionsPerMember` sessions: its least recently used one
 *   goes when it has one more. Without that, one account logging in again and again (no cookie kept)
 *   would fill the store with its own sessions and then evict every other member's, least recently
 *   used first, however many accounts are logged in.
 * - A write that is not a creation (`info.created` false) to an id the store does not hold is dropped:
 *   a request that loaded the session before a logout, an expiry or an eviction cannot bring it back
 *   when it finishes, however long it took.
 * - Destroyed ids are also remembered for `idleSeconds` (at most `maxCount` of them, oldest dropped
 *   first) and any write to one is dropped, for writes that do not say whether they create.
 * - A second rotation of an id (two concurrent logins on one session) destroys the id the first one
 *   created, so only one of them stays authenticated.
 * - `update` is atomic (the store is synchronous), so concurrent requests on one session keep each
 *   other's changes. `read` refreshes the idle lifetime, so the store needs no `touch`.
 */
export class MemorySessionStore implements SessionStore {
  readonly maxCount: number;
  readonly maxBytes: number;
  readonly idleMs: number;
  readonly maxEntryLength: number;
  readonly maxSessionsPerMember: number;
  /** Sessions holding a logged-in member, evicted only when nothing else is left. */
  private readonly members = new LastUseList<Entry>();
  /** All other sessions, evicted first. */
  private readonly guests = new LastUseList<Entry>();
  /** Destroyed ids; destruction order is expiry order. */
  private readonly destroyed = new LastUseList<Destroyed>();
  /** Member id → the ids of its sessions, least recently used first (at most `maxSessionsPerMember`). */
  private readonly owners = new Map<string, Set<string>>();
  /** `sizeOf` all kept sessions' data. */
  private bytes = 0;
  private readonly now: () => number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.maxCount = Math.max(1, options.maxCount ?? 10_000);
    this.maxBytes = Math.max(4, options.maxBytes ?? 64 * 1024 * 1024);
    this.idleMs = Math.max(1, options.idleSeconds ?? 1800) * 1000;
    this.maxEntryLength = Math.max(2, options.maxEntryLength ?? 64 * 1024);
    const perMember = options.maxSessionsPerMember;
    this.maxSessionsPerMember = Math.min(this.maxCount, Math.max(1, typeof perMember === 'number' && perMember === perMember ? perMember : 32));
    this.now = options.now ?? Date.now;
  }

  /** Sessions currently kept (expired ones not swept yet included). */
  get size(): number {
    return this.members.size + this.guests.size;
  }

  /** What the kept sessions' data counts toward `maxBytes` (expired ones not swept yet included). */
  get storedBytes(): number {
    return this.bytes;
  }

  read(id: string): string | null {
    const list = this.members.has(id) ? this.members : this.guests;
    const entry = list.get(id);
    if (entry === undefined) return null;
    const now = this.now();
    if (entry.expiresAt <= now) {
      this.remove(list, id);
      return null;
    }
    entry.expiresAt = now + this.idleMs;
    list.set(id, entry);
    if (entry.owner !== '') this.own(entry.owner, id);
    return entry.data;
  }

  /**
   * Stores `data`. Dropped (not stored) when `id` was destroyed less than `idleSeconds` ago, or when
   * the write is not a creation and the store does not hold `id`. A write without `info` (a direct
   * call; the session always gives it) may create.
   */
  write(id: string, data: string, info?: SessionWriteInfo): void {
    if (data.length > this.maxEntryLength || sizeOf(data) > this.maxBytes) {
      throw new Error(`Session data of ${data.length} characters exceeds the store's limit of ${Math.min(this.maxEntryLength, Math.floor(this.maxBytes / 2))}.`);
    }
    const now = this.now();
    this.sweepDestroyed(now);
    if (this.destroyed.has(id)) return;
    if (info?.created === false && this.live(id, now) === undefined) return;
    if (info?.created && info.replaces !== undefined) this.succeed(info.replaces, id);
    this.forget(id);
    const owner = info?.member && typeof info.owner === 'string' ? info.owner : '';
    (info?.member ? this.members : this.guests).set(id, { data, expiresAt: now + this.idleMs, owner });
    this.bytes += sizeOf(data);
    if (owner !== '') this.own(owner, id);
    this.sweep(now, id);
  }

  /** Applies `apply` to the data held under `id`, synchronously (so atomically); nothing when not held. */
  update(id: string, apply: (current: string) => SessionUpdate | null): void {
    const entry = this.live(id, this.now());
    if (entry === undefined) return;
    const next = apply(entry.data);
    if (next === null) this.destroy(id);
    else this.write(id, next.data, { ...next.info, created: false });
  }

  destroy(id: string): void {
    this.forget(id);
    const now = this.now();
    // Destroyed again (a second rotation of the same id): the first record keeps its successor.
    if (!this.destroyed.has(id)) this.destroyed.set(id, { until: now + this.idleMs, successor: null });
    this.sweepDestroyed(now);
  }

  /** The entry held under `id` when it has not expired. */
  private live(id: string, now: number): Entry | undefined {
    const entry = this.members.get(id) ?? this.guests.get(id);
    return entry !== undefined && entry.expiresAt > now ? entry : undefined;
  }

  /**
   * Records that `id` replaced the destroyed `old`. When `old` had already been replaced (the same
   * session rotated twice by concurrent requests), that first replacement is destroyed: two ids
   * born of one session would otherwise both stay authenticated, one of them held by no client.
   */
  private succeed(old: string, id: string): void {
    const record = this.destroyed.get(old);
    if (record === undefined) return;
    if (record.successor !== null && record.successor !== id) this.destroy(record.successor);
    record.successor = id;
  }

  private remove(list: LastUseList<Entry>, id: string): void {
    const entry = list.get(id);
    if (entry === undefined) return;
    list.delete(id);
    this.bytes -= sizeOf(entry.data);
    if (entry.owner !== '') this.disown(entry.owner, id);
  }

  /**
   * Makes `id` its owner's most recently used session; when the owner then has more than
   * `maxSessionsPerMember`, its least recently used one (never `id`, which is now last) is evicted.
   */
  private own(owner: string, id: string): void {
    let ids = this.owners.get(owner);
    if (ids === undefined) this.owners.set(owner, (ids = new Set()));
    ids.delete(id);
    ids.add(id);
    if (ids.size > this.maxSessionsPerMember) this.remove(this.members, ids.values().next().value!);
  }

  private disown(owner: string, id: string): void {
    const ids = this.owners.get(owner);
    if (ids === undefined) return;
    ids.delete(id);
    if (ids.size === 0) this.owners.delete(owner);
  }

  private forget(id: string): void {
    this.remove(this.members, id);
    this.remove(this.guests, id);
  }

  /**
   * Drops expired entries (at the front of each list), then evicts above the bounds: the least
   * recently used session without a member, or, when the only one left is `current`, the least
   * recently used member.
   */
  private sweep(now: number, current: string): void {
    this.dropExpired(this.guests, now);
    this.dropExpired(this.members, now);
    while (this.size > this.maxCount || this.bytes > this.maxBytes) {
      const guestsToSpare = this.guests.has(current) ? 1 : 0;
      const list = this.guests.size > guestsToSpare ? this.guests : this.members;
      // Above either bound another entry than `current` is kept (`current` alone fits in `maxBytes`),
      // and `current` is at the back of its list, so the front of the list chosen is not it.
      this.remove(list, list.oldest()!.key);
    }
  }

  private dropExpired(list: LastUseList<Entry>, now: number): void {
    for (let oldest = list.oldest(); oldest !== null && oldest.value.expiresAt <= now; oldest = list.oldest()) this.remove(list, oldest.key);
  }

  /** Forgets destroyed ids whose time is up and the oldest ones above `maxCount`. */
  private sweepDestroyed(now: number): void {
    for (let oldest = this.destroyed.oldest(); oldest !== null; oldest = this.destroyed.oldest()) {
      if (oldest.value.until > now && this.destroyed.size <= this.maxCount) break;
      this.destroyed.delete(oldest.key);
    }
  }
}
