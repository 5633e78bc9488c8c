/**
 * Profile storage (CONTRACT §6.3), chosen by `PROFILER_DSN`:
 *
 * - `memory://?max=N&max_bytes=B` (default `max=1000`, `max_bytes=64mb`): the newest N profiles of this
 *   process, also bounded in bytes; the oldest go first.
 * - `file:<dir>?max=N&max_bytes=B` (default `max=1000`, `max_bytes=256mb`): one JSON file per profile
 *   (`<dir>/<token>.json`) plus an index (`<dir>/index.ndjson`, one JSON line per profile, oldest
 *   first). Several processes on one machine share a directory:
 *   - a token is reserved by creating its file exclusively (`O_EXCL`), so two processes never hand out
 *     the same token; the empty file reads as "pending";
 *   - a profile is written to a temporary file and renamed over its reservation (readers never see a
 *     half-written profile);
 *   - every change of the index happens under a lock file (`index.lock`, created with `O_EXCL`, broken
 *     when older than 5 s); the index is rewritten through a temporary file and a rename, so readers
 *     (who take no lock) see either the old or the new index, never a mix;
 *   - the bound is kept by deleting the oldest profiles; leftovers of crashed processes (reservations
 *     never filled, temporary files) are swept after ten minutes.
 *   The file store loads `node:fs/promises` on first use only (dynamic import), so a bundle that never
 *   uses it runs anywhere (Deno, workers); Node and Deno both provide that module.
 *
 * Tokens are checked against /^[0-9a-f]{6}$/ before any file name is built: nothing a client sends can
 * name another file.
 */
import { parseByteSize } from '../../app/config.ts';
import { isToken, randomToken, type Profile, type ProfileSummary } from './profile.ts';
import { toStored, type StoredProfile } from './stored.ts';

export { utf8Length } from './stored.ts';

export interface SearchCriteria {
  ip?: string;
  method?: string;
  status?: number;
  /** Substring of the URL, case-insensitive. */
  url?: string;
  /** Unix seconds, inclusive. */
  start?: number;
  end?: number;
  limit?: number;
}

export interface ProfileStore {
  readonly kind: 'memory' | 'file';
  readonly max: number;
  readonly maxBytes: number;
  /** A token that no stored, pending or recently issued profile has; the profile is then pending. */
  reserveToken(): string | Promise<string>;
  /**
   * Stores a profile (its token was reserved); keeps the bound by evicting the oldest. A collected
   * profile comes already serialized and sized (stored.ts); a plain object is serialized here.
   */
  write(profile: Profile | StoredProfile): Promise<void>;
  /** The profile, or null when unknown, evicted or still pending. */
  read(token: string): Promise<Profile | null>;
  /** True while a reserved token's profile is not written yet. */
  isPending(token: string): Promise<boolean>;
  /** Summaries matching the criteria, newest first. */
  find(criteria?: SearchCriteria): Promise<ProfileSummary[]>;
  /** Every profile and reservation removed (tests, `clear` tooling). */
  purge(): Promise<void>;
  /** Gives back tokens reserved ahead and not used (file store); the store stays usable. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_PROFILES = 1000;
const DEFAULT_MEMORY_BYTES = 64 * 1024 * 1024;
const DEFAULT_FILE_BYTES = 256 * 1024 * 1024;
/** Reservations whose profile never came (a host that did not run kernel.terminate) expire. */
const RESERVATION_TTL_MS = 60_000;
/** Up to this many pending reservations nothing is swept. */
const SWEEP_FROM = 256;
/** Pending reservations kept at most; the oldest are forgotten first. */
export const MAX_RESERVATIONS = 10_000;

export interface ParsedDsn {
  kind: 'memory' | 'file';
  dir: string;
  max: number;
  maxBytes: number;
}

/** `memory://?max=N`, `memory:`, `file:<dir>?max=N`, `file:///abs/dir?max=N`; anything else throws. */
export function parseProfilerDsn(dsn: string): ParsedDsn {
  const fail = (why: string): never => {
    throw new Error(`PROFILER_DSN must be "memory://?max=N" or "file:<dir>?max=N" (${why}), got "${dsn}".`);
  };
  const value = dsn.trim();
  const q = value.indexOf('?');
  const head = q < 0 ? value : value.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : value.slice(q + 1));
  for (const key of params.keys()) if (key !== 'max' && key !== 'max_bytes') fail(`unknown option "${key}"`);
  let kind: 'memory' | 'file';
  let dir = '';
  if (/^memory:(\/\/)?$/i.test(head)) {
    kind = 'memory';
  } else if (/^file:/i.test(head)) {
    kind = 'file';
    dir = head.slice(5);
    if (dir.startsWith('//')) {
      // file:///abs/dir (URL form) — the authority must be empty or localhost.
      const rest = dir.slice(2);
      const slash = rest.indexOf('/');
      const authority = slash < 0 ? rest : rest.slice(0, slash);
      if (authority !== '' && authority !== 'localhost') fail('a file store must be on this machine');
      dir = slash < 0 ? '' : rest.slice(slash);
      try {
        dir = decodeURIComponent(dir);
      } catch {
        fail('malformed percent-encoding');
      }
    }
    dir = dir.replace(/\/+$/, '');
    if (dir === '') fail('no directory');
    if (dir.includes('\0')) fail('NUL in the directory');
  } else {
    return fail('unknown scheme');
  }
  const maxText = params.get('max');
  let max = DEFAULT_MAX_PROFILES;
  if (maxText !== null) {
    if (!/^\d+$/.test(maxText) || Number(maxText) < 1 || Number(maxText) > 1_000_000) fail('max must be an integer between 1 and 1000000');
    max = Number(maxText);
  }
  const bytesText = params.get('max_bytes');
  let maxBytes = kind === 'memory' ? DEFAULT_MEMORY_BYTES : DEFAULT_FILE_BYTES;
  if (bytesText !== null) {
    try {
      maxBytes = parseByteSize('PROFILER_DSN max_bytes', bytesText);
    } catch (error) {
      fail((error as Error).message);
    }
    if (maxBytes < 1024) fail('max_bytes must be at least 1kb');
  }
  return { kind, dir, max, maxBytes };
}

export function createProfileStore(dsn: string): ProfileStore {
  const parsed = parseProfilerDsn(dsn);
  return parsed.kind === 'memory' ? new MemoryProfileStore(parsed.max, parsed.maxBytes) : new FileProfileStore(parsed.dir, parsed.max, parsed.maxBytes);
}

/** The last N issued tokens: a token is not handed out twice in a row of N requests, evicted or not. */
class RecentTokens {
  private readonly ring: string[];
  private readonly set = new Set<string>();
  private at = 0;
  constructor(size: number) {
    this.ring = new Array<string>(size).fill('');
  }
  has(token: string): boolean {
    return this.set.has(token);
  }
  add(token: string): void {
    const old = this.ring[this.at];
    if (old) this.set.delete(old);
    this.ring[this.at] = token;
    this.set.add(token);
    this.at = (this.at + 1) % this.ring.length;
  }
}

/** In-process bookkeeping shared by both stores: reservations, waiters, recent tokens. */
abstract class BaseStore {
  protected readonly reserved = new Map<string, number>();
  protected readonly recent = new RecentTokens(8192);
  /** Size of `reserved` that triggers the next sweep. */
  private sweepAt = SWEEP_FROM;

  protected reserveLocal(token: string): void {
    this.markReserved(token);
    this.recent.add(token);
  }

  /**
   * Records a reservation at the end of `reserved`, which is therefore in reservation order. Sweeps
   * run only when the count has doubled since the last one (or reached MAX_RESERVATIONS): they drop
   * expired reservations from the front, and the oldest ones down to 90 % of the bound, so a
   * reservation costs the same however many are pending, and a host that never runs kernel.terminate
   * cannot make them grow with traffic. (Expiry itself is checked on every lookup.)
   */
  protected markReserved(token: string): void {
    const reserved = this.reserved;
    reserved.delete(token);
    reserved.set(token, Date.now());
    if (reserved.size > this.sweepAt) this.sweepReservations();
  }

  private sweepReservations(): void {
    const reserved = this.reserved;
    const cutoff = Date.now() - RESERVATION_TTL_MS;
    const keep = Math.floor(MAX_RESERVATIONS * 0.9);
    for (const [t, at] of reserved) {
      if (at >= cutoff && reserved.size <= keep) break;
      reserved.delete(t);
    }
    this.sweepAt = Math.min(MAX_RESERVATIONS, Math.max(SWEEP_FROM, reserved.size * 2));
  }

  /** Pending reservations (tests, diagnostics). */
  get pendingCount(): number {
    return this.reserved.size;
  }

  protected isLocallyReserved(token: string): boolean {
    const at = this.reserved.get(token);
    return at !== undefined && at >= Date.now() - RESERVATION_TTL_MS;
  }
}

function matches(summary: ProfileSummary, c: SearchCriteria): boolean {
  if (c.ip && !summary.ip.includes(c.ip)) return false;
  if (c.method && summary.method !== c.method.toUpperCase()) return false;
  if (c.status !== undefined && summary.status !== c.status) return false;
  if (c.url && !summary.url.toLowerCase().includes(c.url.toLowerCase())) return false;
  if (c.start !== undefined && summary.time < c.start) return false;
  if (c.end !== undefined && summary.time > c.end) return false;
  return true;
}

/** Newest first, filtered, limited. `summaries` is oldest first. */
function search(summaries: ProfileSummary[], criteria: SearchCriteria): ProfileSummary[] {
  const limit = criteria.limit ?? 50;
  const out: ProfileSummary[] = [];
  for (let i = summaries.length - 1; i >= 0 && out.length < limit; i--) {
    if (matches(summaries[i]!, criteria)) out.push(summaries[i]!);
  }
  return out;
}

export class MemoryProfileStore extends BaseStore implements ProfileStore {
  readonly kind = 'memory' as const;
  /** Insertion order = age order (oldest first). Profiles are kept serialized (stored.ts), parsed on read. */
  private readonly entries = new Map<string, StoredProfile>();
  private bytes = 0;

  constructor(
    readonly max: number = DEFAULT_MAX_PROFILES,
    readonly maxBytes: number = DEFAULT_MEMORY_BYTES,
  ) {
    super();
  }

  get size(): number {
    return this.entries.size;
  }
  get byteSize(): number {
    return this.bytes;
  }

  reserveToken(): string {
    for (let attempt = 0; attempt < 64; attempt++) {
      const token = randomToken();
      if (this.entries.has(token) || this.isLocallyReserved(token) || (attempt < 32 && this.recent.has(token))) continue;
      this.reserveLocal(token);
      return token;
    }
    throw new Error('No free profiler token found.');
  }

  async write(profile: Profile | StoredProfile): Promise<void> {
    const stored = toStored(profile);
    const token = stored.token;
    const previous = this.entries.get(token);
    if (previous) {
      this.entries.delete(token);
      this.bytes -= previous.bytes;
    }
    this.entries.set(token, stored);
    this.bytes += stored.bytes;
    this.reserved.delete(token);
    while (this.entries.size > this.max || this.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value as string;
      if (oldest === token) break; // the newest profile is always kept
      this.bytes -= this.entries.get(oldest)!.bytes;
      this.entries.delete(oldest);
    }
  }

  async read(token: string): Promise<Profile | null> {
    if (!isToken(token)) return null;
    const entry = this.entries.get(token);
    return entry ? (JSON.parse(entry.json()) as Profile) : null;
  }

  async isPending(token: string): Promise<boolean> {
    return isToken(token) && !this.entries.has(token) && this.isLocallyReserved(token);
  }

  async find(criteria: SearchCriteria = {}): Promise<ProfileSummary[]> {
    return search([...this.entries.values()].map((e) => e.summary), criteria);
  }

  async close(): Promise<void> {}

  async purge(): Promise<void> {
    this.entries.clear();
    this.reserved.clear();
    this.bytes = 0;
  }
}

type Fs = typeof import('node:fs/promises');
const LOCK_STALE_MS = 5000;
const LOCK_WAIT_MS = 10_000;
const SWEEP_EVERY_MS = 60_000;
const SWEEP_AGE_MS = 10 * 60_000;
/** Tokens reserved ahead by the file store, and how long one may wait in the pool. */
const TOKEN_POOL = 4;
const POOL_MAX_AGE_MS = 60_000;

/**
 * `node:fs/promises`, loaded on first use: `process.getBuiltinModule` where the host has it (Node ≥
 * 20.16, Deno 2), else a dynamic import the bundler cannot see. A host without a
 * file system fails here, at the first file-store call, never when the bundle loads.
 */
async function loadFs(): Promise<Fs> {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof proc?.getBuiltinModule === 'function') {
    const fs = proc.getBuiltinModule('node:fs/promises') as Fs | undefined;
    if (fs) return fs;
  }
  // A specifier in a variable: bundlers that build on this bundle leave the import to the host.
  const specifier = 'node:fs/promises';
  return (await import(specifier)) as Fs;
}

function errorCode(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

function processId(): string {
  const pid = (globalThis as { process?: { pid?: number } }).process?.pid;
  return pid !== undefined ? String(pid) : randomToken();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class FileProfileStore extends BaseStore implements ProfileStore {
  readonly kind = 'file' as const;
  private fsModule: Promise<Fs> | null = null;
  private ready: Promise<void> | null = null;
  /** In-process writes to the index are queued (the lock file serialises between processes). */
  private queue: Promise<unknown> = Promise.resolve();
  private lastSweep = 0;
  private readonly pool: { token: string; at: number }[] = [];
  private refilling: Promise<void> | null = null;
  private readonly indexPath: string;
  private readonly lockPath: string;
  private readonly pid = processId();

  constructor(
    readonly dir: string,
    readonly max: number = DEFAULT_MAX_PROFILES,
    readonly maxBytes: number = DEFAULT_FILE_BYTES,
  ) {
    super();
    this.indexPath = `${dir}/index.ndjson`;
    this.lockPath = `${dir}/index.lock`;
  }

  private fs(): Promise<Fs> {
    this.fsModule ??= loadFs();
    return this.fsModule;
  }

  private async prepared(): Promise<Fs> {
    const fs = await this.fs();
    this.ready ??= fs.mkdir(this.dir, { recursive: true }).then(() => undefined);
    await this.ready;
    return fs;
  }

  /** The only place a file name is built from a token. */
  private profilePath(token: string): string {
    if (!isToken(token)) throw new Error(`Invalid profiler token "${String(token).slice(0, 20)}".`);
    return `${this.dir}/${token}.json`;
  }

  /**
   * A token whose file this process created exclusively. Tokens are reserved a few at a time ahead of
   * need, so the response path usually gets one without waiting for the disk.
   */
  reserveToken(): string | Promise<string> {
    const cutoff = Date.now() - POOL_MAX_AGE_MS;
    while (this.pool.length > 0) {
      const entry = this.pool.shift()!;
      if (entry.at < cutoff) {
        // Too old to trust (another process may have swept it): give it back.
        void this.fs().then((fs) => fs.unlink(this.profilePath(entry.token))).catch(() => {});
        continue;
      }
      this.reserveLocal(entry.token);
      this.refill();
      return entry.token;
    }
    this.refill();
    return this.reserveOne().then((token) => {
      this.reserveLocal(token);
      return token;
    });
  }

  private refill(): void {
    if (this.refilling || this.pool.length >= TOKEN_POOL) return;
    this.refilling = (async () => {
      try {
        while (this.pool.length < TOKEN_POOL) {
          const token = await this.reserveOne();
          this.pool.push({ token, at: Date.now() });
          this.markReserved(token);
        }
      } catch {
        // the next reservation will report the problem
      } finally {
        this.refilling = null;
      }
    })();
  }

  private async reserveOne(): Promise<string> {
    const fs = await this.prepared();
    for (let attempt = 0; attempt < 64; attempt++) {
      const token = randomToken();
      if (this.reserved.has(token) || (attempt < 32 && this.recent.has(token))) continue;
      try {
        const handle = await fs.open(this.profilePath(token), 'wx');
        await handle.close();
      } catch (error) {
        if (errorCode(error) === 'EEXIST') continue;
        throw error;
      }
      this.recent.add(token);
      return token;
    }
    throw new Error('No free profiler token found.');
  }

  /**
   * Profile files are written concurrently; their index lines are added in the order `write` was
   * called (request order), whatever order the files finish in — eviction drops the oldest requests.
   */
  async write(profile: Profile | StoredProfile): Promise<void> {
    const stored = toStored(profile);
    const token = stored.token;
    const target = this.profilePath(token);
    const written = this.prepared().then(async (fs) => {
      const tmp = `${this.dir}/.tmp-${token}-${this.pid}-${randomToken()}`;
      await fs.writeFile(tmp, stored.json());
      await fs.rename(tmp, target);
      return fs;
    });
    const line = JSON.stringify(stored.summary) + '\n';
    // The queue slot is taken now, before any await: that fixes the index order.
    const run = this.queue.then(() => written).then((fs) => this.withLock(fs, () => this.addToIndex(fs, line, token)));
    this.queue = run.catch(() => {});
    try {
      await run;
    } finally {
      this.reserved.delete(token);
    }
  }

  private async addToIndex(fs: Fs, line: string, token: string): Promise<void> {
    const summaries = await this.readIndex(fs);
    const kept = summaries.filter((s) => s.token !== token);
    kept.push(JSON.parse(line) as ProfileSummary);
    let bytes = 0;
    for (const s of kept) bytes += s.bytes ?? 0;
    if (kept.length === summaries.length + 1 && kept.length <= this.max && bytes <= this.maxBytes) {
      await fs.appendFile(this.indexPath, line);
      return;
    }
    const evicted: ProfileSummary[] = [];
    while (kept.length > 1 && (kept.length > this.max || bytes > this.maxBytes)) {
      const oldest = kept.shift()!;
      bytes -= oldest.bytes ?? 0;
      evicted.push(oldest);
    }
    const tmp = `${this.dir}/.tmp-index-${this.pid}-${randomToken()}`;
    await fs.writeFile(tmp, kept.map((s) => JSON.stringify(s)).join('\n') + '\n');
    await fs.rename(tmp, this.indexPath);
    for (const s of evicted) {
      if (isToken(s.token)) await fs.unlink(this.profilePath(s.token)).catch(() => {});
    }
    if (Date.now() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = Date.now();
      await this.sweep(fs, new Set(kept.map((s) => s.token))).catch(() => {});
    }
  }

  /** Removes reservations never filled and temporary files left by crashed processes. */
  private async sweep(fs: Fs, indexed: Set<string>): Promise<void> {
    const cutoff = Date.now() - SWEEP_AGE_MS;
    for (const name of await fs.readdir(this.dir)) {
      const isProfile = /^[0-9a-f]{6}\.json$/.test(name);
      if (!isProfile && !name.startsWith('.tmp-')) continue;
      if (isProfile && (indexed.has(name.slice(0, 6)) || this.reserved.has(name.slice(0, 6)))) continue;
      const path = `${this.dir}/${name}`;
      const stat = await fs.stat(path).catch(() => null);
      if (stat && stat.mtimeMs < cutoff) await fs.unlink(path).catch(() => {});
    }
  }

  private async withLock<T>(fs: Fs, fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    let handle: Awaited<ReturnType<Fs['open']>> | null = null;
    for (;;) {
      try {
        handle = await fs.open(this.lockPath, 'wx');
        break;
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      const stat = await fs.stat(this.lockPath).catch(() => null);
      if (stat && Date.now() - stat.mtimeMs > LOCK_STALE_MS) {
        // The holder died: a lock is held for milliseconds, never seconds.
        await fs.unlink(this.lockPath).catch(() => {});
        continue;
      }
      if (Date.now() > deadline) throw new Error(`The profiler index lock ${this.lockPath} stayed busy for ${LOCK_WAIT_MS / 1000} s.`);
      await sleep(1 + Math.random() * 6);
    }
    try {
      await handle.writeFile(this.pid).catch(() => {});
      return await fn();
    } finally {
      await handle.close().catch(() => {});
      await fs.unlink(this.lockPath).catch(() => {});
    }
  }

  /** Index lines, oldest first; a torn or foreign line is skipped. */
  private async readIndex(fs: Fs): Promise<ProfileSummary[]> {
    let text: string;
    try {
      text = await fs.readFile(this.indexPath, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
    const out: ProfileSummary[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const s = JSON.parse(line) as ProfileSummary;
        if (isToken(s.token)) out.push(s);
      } catch {
        // a partial line from an interrupted append
      }
    }
    return out;
  }

  async read(token: string): Promise<Profile | null> {
    if (!isToken(token)) return null;
    const fs = await this.fs();
    let text: string;
    try {
      text = await fs.readFile(this.profilePath(token), 'utf8');
    } catch {
      return null;
    }
    if (!text) return null; // a reservation: pending
    try {
      return JSON.parse(text) as Profile;
    } catch {
      return null;
    }
  }

  async isPending(token: string): Promise<boolean> {
    if (!isToken(token)) return false;
    if (this.isLocallyReserved(token)) return true;
    const fs = await this.fs();
    const stat = await fs.stat(this.profilePath(token)).catch(() => null);
    return stat !== null && stat.size === 0 && Date.now() - stat.mtimeMs < RESERVATION_TTL_MS;
  }

  async find(criteria: SearchCriteria = {}): Promise<ProfileSummary[]> {
    const fs = await this.fs();
    const all = await this.readIndex(fs);
    // A token indexed twice (should not happen) counts once, at its newest line.
    const seen = new Set<string>();
    const unique: ProfileSummary[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      if (seen.has(all[i]!.token)) continue;
      seen.add(all[i]!.token);
      unique.push(all[i]!);
    }
    return search(unique.reverse(), criteria);
  }

  async close(): Promise<void> {
    await this.refilling;
    const fs = await this.fs();
    for (const { token } of this.pool.splice(0)) {
      this.reserved.delete(token);
      await fs.unlink(this.profilePath(token)).catch(() => {});
    }
  }

  async purge(): Promise<void> {
    const fs = await this.prepared();
    await this.withLock(fs, async () => {
      for (const name of await fs.readdir(this.dir)) {
        if (/^[0-9a-f]{6}\.json$/.test(name) || name.startsWith('.tmp-') || name === 'index.ndjson') await fs.unlink(`${this.dir}/${name}`).catch(() => {});
      }
    });
    this.reserved.clear();
    this.pool.length = 0;
  }
}
