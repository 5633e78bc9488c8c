import type { Session } from '../http/session.ts';
import type { SessionStore, SessionUpdate } from './store.ts';
import { nullRecord } from '../http/null-record.ts';
import { FlashBag, FLASHES_KEY, flashesOf } from './flash-bag.ts';

/**
 * Session keys starting with this hold a logged-in member (a firewall context keeps its member under
 * `_security_<context>`). Defined here rather than imported from the security module so the session
 * layer does not depend on it; the store is told when a session holds one, so it can evict such
 * sessions last.
 */
export const SECURITY_SESSION_KEY_PREFIX = '_security_';

/** A session id: 32 bytes from the CSPRNG, base64url (256 bits, 43 characters). */
export function newSessionId(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Shape of the ids this module hands out; anything else a client sends is not even looked up. */
const SESSION_ID = /^[A-Za-z0-9_-]{22,128}$/;

export function isWellFormedSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** Thrown when session data is used before an asynchronous store delivered it. */
export class SessionNotLoadedError extends Error {
  constructor() {
    super('The session store answers asynchronously: `await startSession(request)` (or `await session.start()`) before reading or writing the session.');
    this.name = 'SessionNotLoadedError';
  }
}

/** What a save did, for the SessionListener to mirror in the response's cookie. */
export type SaveOutcome =
  /** Nothing used the session: nothing stored, no cookie touched. */
  | 'untouched'
  /**
   * Data stored under `session.id` (written now, or already there unchanged since the request loaded
   * it); the cookie must carry it if the client does not have it yet.
   */
  | 'stored'
  /** The session is empty: whatever was stored is gone, a cookie the client has must be cleared. */
  | 'emptied';

/**
 * The session behind `request.getSession()`: data in a Map (so `__proto__` or `constructor` are plain
 * keys), loaded from the store on first use, saved by the SessionListener at kernel.response.
 *
 * - An id the client presents is adopted only when the store knows it; otherwise the session starts
 *   empty and gets a fresh id from the CSPRNG when it is first saved (no session fixation).
 * - `migrate()` gives the session a new id and destroys the old one at save time (login).
 * - `invalidate()` empties it and gives it a new id (logout).
 * - Values must survive JSON (they are stored as a JSON string).
 * - Saving writes only data that changed: a request that merely read the session and is still in
 *   flight when the member logs out must not write its stale copy back and revive the destroyed id.
 *   The store is told whether the id was generated during this request (`created`), so it can refuse
 *   a late write to an id it no longer holds (destroyed, expired or evicted).
 * - Concurrent requests on one session: when the store has `update` (the memory store does), a
 *   request that changed a session it loaded applies only the keys it set or removed onto the data
 *   stored at that moment, so it keeps what other requests saved meanwhile. Otherwise, and after a
 *   rotation, the whole session is written.
 */
export class StoredSession implements Session {
  /** How many times the data was read or written during this request (0 = unused). */
  usage = 0;
  /** `usage` when the SessionListener saved the session at kernel.response (0 for one created after). */
  usageAtSave = 0;
  private data: Map<string, unknown> | null = null;
  private _id = '';
  /** Ids whose stored data must go when this session is saved (rotation, invalidation). */
  private obsolete: string[] | null = null;
  private loading: Promise<void> | null = null;
  /** The id whose data the store holds as far as this session knows ('' when none). */
  private storedId = '';
  /** The serialized data the store holds under `storedId` (what was read or last written), or null. */
  private storedData: string | null = null;
  private closed = false;
  private flashBag: FlashBag | null = null;

  constructor(
    private readonly store: SessionStore,
    /** The well-formed id the client sent in its cookie, or null. */
    readonly requestedId: string | null,
  ) {}

  /** The session id ('' for a new session until it is saved or its id is asked for). */
  get id(): string {
    if (this._id === '' && this.data !== null) this._id = newSessionId();
    return this._id;
  }

  /** True once anything read or wrote the session in this request. */
  get isStarted(): boolean {
    return this.usage > 0;
  }

  get isEmpty(): boolean {
    return this.loaded().size === 0;
  }

  /** True once the data is available (loaded from the store, or a new session). */
  get isLoaded(): boolean {
    return this.data !== null;
  }

  /**
   * Loads the data from the store. Returns a promise only when the store answers asynchronously;
   * a session without a client id (or already loaded) is ready at once.
   */
  start(): void | Promise<void> {
    if (this.data !== null) return;
    if (this.requestedId === null) {
      this.data = new Map();
      return;
    }
    if (this.loading) return this.loading;
    const result = this.store.read(this.requestedId);
    // `!= null`: a store answering undefined for an unknown id (one built on Map#get) means no session,
    // as it already did asynchronously; reading `.then` of it threw (a 500 on every such request).
    if (result != null && typeof (result as Promise<string | null>).then === 'function') {
      const loading = (this.loading = Promise.resolve(result as Promise<string | null>).then((raw) => this.apply(raw)));
      // A synchronous use before the data came (`session.get` without `await startSession`) throws
      // SessionNotLoadedError and leaves this promise to nobody: a store whose read then rejects must
      // not be an unhandled rejection (CONTRACT §10). Whoever awaits `loading` still gets the error.
      loading.catch(() => undefined);
      return loading;
    }
    this.apply(result as string | null);
  }

  private apply(raw: string | null): void {
    if (this.data !== null) return;
    const data = raw == null ? null : parseData(raw);
    if (data !== null) {
      this._id = this.requestedId!;
      this.storedId = this._id;
      this.storedData = raw;
    }
    // Nothing stored, or unreadable data: start over under a new id.
    this.data = data ?? new Map();
  }

  private loaded(): Map<string, unknown> {
    if (this.data === null) {
      const pending = this.start();
      if (pending) throw new SessionNotLoadedError();
    }
    return this.data!;
  }

  private writable(): Map<string, unknown> {
    if (this.closed) throw new Error('The session was already saved for this request; changes now would be lost.');
    this.usage++;
    return this.loaded();
  }

  get<T = unknown>(key: string): T | undefined;
  get<T>(key: string, fallback: T): T;
  get<T = unknown>(key: string, fallback?: T): T | undefined {
    this.usage++;
    const data = this.loaded();
    return data.has(key) ? (data.get(key) as T) : fallback;
  }

  set(key: string, value: unknown): void {
    this.writable().set(key, value);
  }

  has(key: string): boolean {
    this.usage++;
    return this.loaded().has(key);
  }

  /** Removes `key` and answers the value it held (undefined when none), as Session::remove returns it. */
  remove(key: string): unknown {
    const data = this.writable();
    const value = data.get(key);
    data.delete(key);
    return value;
  }

  /** The attributes: flashes are the flash bag's (Session::all is the attribute bag's). */
  all(): Record<string, unknown> {
    this.usage++;
    const record = toRecord(this.loaded());
    delete record[FLASHES_KEY];
    return record;
  }

  /** Removes the attributes; flashes stay for the flash bag (Session::clear clears the attribute bag). */
  clear(): void {
    const data = this.writable();
    const flashes = data.get(FLASHES_KEY);
    data.clear();
    if (flashes !== undefined) data.set(FLASHES_KEY, flashes);
  }

  /**
   * The flash bag. Asking for it is a use of the session, as in Symfony (Session::getFlashBag goes
   * through SessionBagProxy::getBag, which starts the session and counts a use): the response becomes
   * private, as for any other session access.
   */
  getFlashBag(): FlashBag {
    this.usage++;
    // Loads the data when the store answers at once; an asynchronous store's load is only begun here
    // (its rejection is handled in start()), the bag's methods then wait for startSession as before.
    void this.start();
    return (this.flashBag ??= new FlashBag({
      readFlashes: () => flashesOf(this.get(FLASHES_KEY)),
      writeFlashes: (flashes) => (Object.keys(flashes).length === 0 ? this.remove(FLASHES_KEY) : this.set(FLASHES_KEY, flashes)),
    }));
  }

  migrate(): void {
    this.writable();
    this.retireId();
    this._id = newSessionId();
  }

  invalidate(): void {
    this.writable().clear();
    this.retireId();
    this._id = newSessionId();
  }

  /**
   * Marks the current id for destruction at save time when the store holds it. An id generated during
   * this request was never stored, so destroying it would only fill the store's list of destroyed ids
   * (which a flood of anonymous logouts could otherwise churn).
   */
  private retireId(): void {
    if (this._id !== '' && this._id === this.storedId) (this.obsolete ??= []).push(this._id);
  }

  /** The data without counting as a use (profiler); null when it was never loaded. */
  peek(): Record<string, unknown> | null {
    return this.data === null ? null : toRecord(this.data);
  }

  /**
   * Writes the session to the store (or removes it when empty) if it was used. Returns what happened,
   * or a promise of it when the store is asynchronous.
   *
   * Data identical to what the store already holds under the same id is not written again (only
   * `store.touch` is called, when the store has it): a request still in flight at logout would
   * otherwise re-create the id the logout destroyed, member included. The outcome is 'stored' all the
   * same, so the response (cookie, Cache-Control) is what it always was.
   */
  save(): SaveOutcome | Promise<SaveOutcome> {
    if (this.usage === 0 || this.data === null) return 'untouched';
    const pending: Promise<void>[] = [];
    const track = (r: void | Promise<void>) => {
      if (r) pending.push(r);
    };
    // The id a rotation replaces (retireId keeps only the stored id, so there is at most one).
    const replaces = this.obsolete?.[0];
    if (this.obsolete) for (const old of this.obsolete) track(this.store.destroy(old));
    this.obsolete = null;
    // The id is the one loaded from the store (or already written by this session): not new, not rotated.
    const loadedId = this._id !== '' && this._id === this.storedId;
    const serialized = this.data.size === 0 ? null : JSON.stringify(toRecord(this.data));
    let settle = (): SaveOutcome => (serialized === null ? 'emptied' : 'stored');
    if (loadedId && serialized === this.storedData) {
      if (this.store.touch) track(this.store.touch(this._id));
    } else if (loadedId && this.store.update) {
      settle = this.merge(this.store.update.bind(this.store), track);
    } else if (serialized === null) {
      if (loadedId) track(this.store.destroy(this._id));
      this.storedId = '';
      this.storedData = null;
    } else {
      track(this.store.write(this.id, serialized, { ...memberInfo(this.data), created: !loadedId, replaces }));
      this.storedId = this._id;
      this.storedData = serialized;
    }
    return pending.length ? Promise.all(pending).then(settle) : settle();
  }

  /**
   * Saves through the store's atomic `update`: only what this request changed since it loaded the
   * session (keys set, changed in place, or removed) is applied onto the data stored now, so changes
   * other requests saved meanwhile are kept. Changes are found by comparing with the loaded data, key
   * by key, rather than by recording `set` calls, because code may change an object read from the
   * session in place. Returns what tells the outcome once the update is done.
   */
  private merge(update: NonNullable<SessionStore['update']>, track: (r: void | Promise<void>) => void): () => SaveOutcome {
    const loaded = parseData(this.storedData!) ?? new Map<string, unknown>();
    const changes = changesBetween(loaded, this.data!);
    let merged: Map<string, unknown> | null = null;
    let serialized: string | null = null;
    track(update(this._id, (current): SessionUpdate | null => {
      // A store may call this more than once (a compare-and-set that retries): only the last call counts,
      // so nothing of an earlier attempt may be left over (its `serialized` made an emptied session 'stored').
      serialized = null;
      merged = parseData(current) ?? new Map();
      for (const [key, value] of changes) {
        if (key === FLASHES_KEY) {
          // The flash bag is one key, but its messages are added and taken one type at a time by
          // requests that overlap (a page showing them while an XHR adds one): replacing the key
          // whole lost the message added meanwhile, or showed again the ones just shown.
          const flashes = mergeFlashes(loaded.get(FLASHES_KEY), value === REMOVED ? undefined : value, merged.get(FLASHES_KEY));
          if (Object.keys(flashes).length === 0) merged.delete(key);
          else merged.set(key, flashes);
        } else if (value === REMOVED) merged.delete(key);
        else merged.set(key, value);
      }
      if (merged.size === 0) return null;
      serialized = JSON.stringify(toRecord(merged));
      return { data: serialized, info: { ...memberInfo(merged), created: false } };
    }));
    return () => {
      // The store no longer held the id (destroyed, expired, evicted): nothing was written, and
      // nothing may be, so what the session knows is left as it is. Nor is the cookie touched: this
      // request's view is stale, and the client may already hold the id a concurrent login or logout
      // gave it (clearing the cookie here, because this request emptied its copy, logged the member
      // out whose login response arrived first).
      if (merged === null) return 'untouched';
      this.data = merged;
      if (serialized === null) {
        this.storedId = '';
        this.storedData = null;
        return 'emptied';
      }
      this.storedData = serialized;
      return 'stored';
    };
  }

  /** After the response: later changes would be lost, so they throw instead. */
  close(): void {
    this.closed = true;
  }
}

/**
 * Whether the data holds a logged-in member (a `_security_<context>` key) and, when the first such key
 * has a string `memberId` (what the firewall stores), that member's id: the store bounds the sessions
 * of one member with it, so one account logging in again and again cannot evict everyone else.
 */
function memberInfo(data: Map<string, unknown>): { member: boolean; owner?: string } {
  for (const [key, value] of data) {
    if (!key.startsWith(SECURITY_SESSION_KEY_PREFIX)) continue;
    const memberId = value !== null && typeof value === 'object' ? (value as { memberId?: unknown }).memberId : undefined;
    return typeof memberId === 'string' && memberId !== '' ? { member: true, owner: memberId } : { member: true };
  }
  return { member: false };
}

/** Whether two session values are stored alike (session data is JSON). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether `list` begins with the messages of `prefix` (JSON-wise). */
function startsWith(list: unknown[], prefix: unknown[]): boolean {
  if (prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (!sameJson(list[i], prefix[i])) return false;
  return true;
}

/**
 * How many messages at the front of `theirs` are the last ones of `was` (JSON-wise), as many as possible:
 * those this request loaded that no other request has taken yet. The longest prefix of `theirs` that is
 * a suffix of `was`, found in linear time (Knuth-Morris-Pratt), since a type may hold thousands of messages.
 */
function stillStored(was: unknown[], theirs: unknown[]): number {
  const t = theirs.map((message) => JSON.stringify(message));
  const fallback = new Array<number>(t.length).fill(0);
  for (let i = 1, k = 0; i < t.length; i++) {
    while (k > 0 && t[i] !== t[k]) k = fallback[k - 1];
    if (t[i] === t[k]) k++;
    fallback[i] = k;
  }
  let k = 0;
  for (const message of was) {
    const m = JSON.stringify(message);
    while (k > 0 && (k === t.length || m !== t[k])) k = fallback[k - 1];
    if (k < t.length && m === t[k]) k++;
  }
  return k;
}

/**
 * This request's flash changes applied onto the flashes stored now, type by type. A type's stored
 * messages behave as a queue: requests add at the end, and one that takes them (get, all) takes all it
 * loaded, which are at the front. So of the messages this request loaded, those still stored are a
 * suffix of what it loaded and a prefix of what is stored (others may have taken the first ones): the
 * prefix assumed before (all it loaded, still at the front) kept a message a third request had shown
 * meanwhile, and it was shown twice. Messages it only added go after the stored ones; when it took or
 * replaced the type's messages, those it loaded and that are still stored go, and what it kept or added
 * comes after the ones other requests added since. So a flash is shown once and none added concurrently
 * is lost, as with Symfony's locked native sessions (two equal messages cannot be told apart).
 */
function mergeFlashes(before: unknown, after: unknown, current: unknown): Record<string, unknown[]> {
  const loaded = flashesOf(before);
  const mine = flashesOf(after);
  const stored = flashesOf(current);
  const merged: Record<string, unknown[]> = Object.create(null);
  for (const type of new Set([...Object.keys(stored), ...Object.keys(mine), ...Object.keys(loaded)])) {
    const was = loaded[type] ?? [];
    const now = mine[type] ?? [];
    const theirs = stored[type] ?? [];
    const messages = startsWith(now, was)
      ? [...theirs, ...now.slice(was.length)]
      : [...theirs.slice(stillStored(was, theirs)), ...now];
    if (messages.length > 0) merged[type] = messages;
  }
  return merged;
}

/** Marks a removed key among the changes (session values are JSON, never a symbol). */
const REMOVED = Symbol('removed');

/** The keys whose value differs between `before` and `after` (JSON-wise), with their new value or REMOVED. */
function changesBetween(before: Map<string, unknown>, after: Map<string, unknown>): Map<string, unknown> {
  const changes = new Map<string, unknown>();
  for (const [key, value] of after) {
    if (!before.has(key) || !sameJson(before.get(key), value)) changes.set(key, value);
  }
  for (const key of before.keys()) if (!after.has(key)) changes.set(key, REMOVED);
  return changes;
}

/** Stored data as a Map, or null when it is not a JSON object. */
function parseData(raw: string): Map<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const data = new Map<string, unknown>();
  for (const key of Object.keys(parsed)) data.set(key, (parsed as Record<string, unknown>)[key]);
  return data;
}

function toRecord(data: Map<string, unknown>): Record<string, unknown> {
  const out = nullRecord();
  for (const [k, v] of data) out[k] = v;
  return out;
}

/**
 * Makes the request's session ready: with an asynchronous store, call this (and await it) before the
 * first synchronous read or write. With the memory store it is never needed.
 */
export function startSession(request: { getSession(): Session }): void | Promise<void> {
  const session = request.getSession();
  return session instanceof StoredSession ? session.start() : undefined;
}
