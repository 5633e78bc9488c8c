/**
 * Where sessions live between requests. A store keeps each session's data as an opaque string under
 * its id; methods may answer synchronously (the memory store) or with a promise (a Redis or database
 * store), and the session machinery awaits only when they do.
 */
export interface SessionStore {
  /** The data saved under `id`, or null when there is none (unknown, expired or destroyed). */
  read(id: string): string | null | Promise<string | null>;
  /** Saves `data` under `id`, replacing what was there, and refreshes its idle lifetime. */
  write(id: string, data: string): void | Promise<void>;
  /** Forgets `id` (logout, id rotation). Unknown ids are ignored. */
  destroy(id: string): void | Promise<void>;
}

export interface MemorySessionStoreOptions {
  /** Most sessions kept; the least recently used goes first. Default 10 000. */
  maxCount?: number;
  /** A session untouched for this long is gone. Default 1 800 s. */
  idleSeconds?: number;
  /** Largest data of one session, in UTF-16 code units; a larger write throws. Default 64 KiB. */
  maxEntryLength?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry {
  data: string;
  expiresAt: number;
}

/**
 * The default store: a bounded in-process map. Entries are kept in last-use order (a read or write
 * moves an entry to the end), so the oldest entry is always first: expired entries are swept from the
 * front on every write and the least recently used one is evicted when the count bound is reached.
 * Memory therefore stays within `maxCount × maxEntryLength` whatever the traffic.
 */
export class MemorySessionStore implements SessionStore {
  readonly maxCount: number;
  readonly idleMs: number;
  readonly maxEntryLength: number;
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.maxCount = Math.max(1, options.maxCount ?? 10_000);
    this.idleMs = Math.max(1, options.idleSeconds ?? 1800) * 1000;
    this.maxEntryLength = Math.max(2, options.maxEntryLength ?? 64 * 1024);
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  read(id: string): string | null {
    const entry = this.entries.get(id);
    if (entry === undefined) return null;
    const now = this.now();
    this.entries.delete(id);
    if (entry.expiresAt <= now) return null;
    entry.expiresAt = now + this.idleMs;
    this.entries.set(id, entry);
    return entry.data;
  }

  write(id: string, data: string): void {
    if (data.length > this.maxEntryLength) throw new Error(`Session data of ${data.length} characters exceeds the store's limit of ${this.maxEntryLength}.`);
    const now = this.now();
    this.entries.delete(id);
    this.entries.set(id, { data, expiresAt: now + this.idleMs });
    this.sweep(now);
  }

  destroy(id: string): void {
    this.entries.delete(id);
  }

  /** Drops expired entries (all at the front) and the least recently used ones above the bound. */
  private sweep(now: number): void {
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt > now && this.entries.size <= this.maxCount) break;
      this.entries.delete(id);
    }
  }
}
