/**
 * `file:<dir>`: one JSON file per profile plus `index.ndjson`, shared by the processes of one machine
 * (the reservation, rename and lock protocol: ../storage.ts). Apart from the memory store: it is the
 * only store that does I/O and must stay consistent across processes.
 */
import { isToken, randomToken, type Profile, type ProfileSummary } from '../profile.ts';
import { toStored, type StoredProfile } from '../stored.ts';
import { BaseStore, RESERVATION_TTL_MS, search } from './base-store.ts';
import { loadFs, type Fs } from './load-fs.ts';
import { isProfile, isProfileSummary } from './profile-shape.ts';
import { DEFAULT_FILE_BYTES, DEFAULT_MAX_PROFILES, type ProfileStore, type SearchCriteria } from './profile-store.ts';

const LOCK_STALE_MS = 5000;
const LOCK_WAIT_MS = 10_000;
const SWEEP_EVERY_MS = 60_000;
const SWEEP_AGE_MS = 10 * 60_000;
/** Tokens reserved ahead by the file store, and how long one may wait in the pool. */
const TOKEN_POOL = 4;
const POOL_MAX_AGE_MS = 60_000;

function errorCode(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

function processId(): string {
  const pid = (globalThis as { process?: { pid?: number } }).process?.pid;
  return pid !== undefined ? String(pid) : randomToken();
}

/** A claim older than this means the directory is stalled; at most this many may wait at once. */
const CLAIM_STALL_MS = 2000;
const MAX_CLAIMS = 256;
const MAX_LOST = 256;
/** After a reservation failed (not for lack of a free token), how long no token is handed out. */
const RETRY_AFTER_MS = 1000;

interface Claim {
  at: number;
  settled: Promise<void>;
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
  /** Tokens handed out whose file is still being created (reserveToken), oldest first. */
  private readonly claims = new Map<string, Claim>();
  /** Claimed tokens whose file could not be created, until their write comes. */
  private readonly lost = new Map<string, Error>();
  /** The tokens of the index as last read: other processes' profiles too. */
  private indexed: ReadonlySet<string> = new Set();
  /** The last failure to create a reservation, until one succeeds. */
  private failure: { error: Error; at: number } | null = null;

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
    // A failure is not remembered: the directory may be there at the next attempt.
    this.ready ??= fs.mkdir(this.dir, { recursive: true }).then(
      () => undefined,
      (error: unknown) => {
        this.ready = null;
        throw error;
      },
    );
    await this.ready;
    return fs;
  }

  /** The only place a file name is built from a token. */
  private profilePath(token: string): string {
    if (!isToken(token)) throw new Error(`Invalid profiler token "${String(token).slice(0, 20)}".`);
    return `${this.dir}/${token}.json`;
  }

  /**
   * A token for the response being sent, without waiting for the disk (CONTRACT §6.3: nothing of the
   * storage may block a response; a stalled directory, say a hung network mount, would otherwise
   * hang every debug response).
   *
   * Across processes a token is still owned through its file, created exclusively (`O_EXCL`):
   * - usually the token comes from a pool of files reserved ahead of need;
   * - when the pool is empty (the first request, a burst), a random token that this process knows
   *   to be free (not pending, not recently issued, not in the index it last read) is handed out at
   *   once and its file created in the background ("a claim"). `write` waits for that file; should
   *   another process have taken the token in between (one chance in 16.7 million per stored
   *   profile), the profile is dropped rather than written over the other's.
   * Waiting with a timeout instead would still hold every response that finds the pool empty; this
   * way the disk is only waited for after the response, in kernel.terminate.
   *
   * While the directory does not answer, claims pile up: once the oldest has waited CLAIM_STALL_MS
   * (or MAX_CLAIMS are waiting) no token is handed out, so the response goes out unprofiled and the
   * listener logs why, and memory does not grow with the traffic. A directory that fails outright
   * (missing, read-only) pauses tokens for RETRY_AFTER_MS after each failure in the same way, rather
   * than linking responses to profiles that cannot be stored.
   */
  reserveToken(): string {
    const pooled = this.takePooled();
    this.refill();
    if (pooled !== null) return pooled;
    this.refuseWhileStalled();
    const token = this.freeToken();
    this.reserveLocal(token);
    this.claim(token);
    return token;
  }

  private takePooled(): string | null {
    const cutoff = Date.now() - POOL_MAX_AGE_MS;
    while (this.pool.length > 0) {
      const entry = this.pool.shift()!;
      if (entry.at < cutoff) {
        // Too old to trust (another process may have swept it): give it back.
        void this.fs().then((fs) => fs.unlink(this.profilePath(entry.token))).catch(() => {});
        continue;
      }
      this.reserveLocal(entry.token);
      return entry.token;
    }
    return null;
  }

  private refuseWhileStalled(): void {
    const failure = this.failure;
    if (failure !== null && Date.now() - failure.at < RETRY_AFTER_MS) {
      throw new Error(`The profile directory "${this.dir}" failed: ${failure.error.message}; this response is not profiled.`);
    }
    const oldest = this.claims.values().next().value as Claim | undefined;
    if (oldest === undefined) return;
    const waited = Date.now() - oldest.at;
    if (waited < CLAIM_STALL_MS && this.claims.size < MAX_CLAIMS) return;
    throw new Error(`The profile directory "${this.dir}" has not answered for ${Math.round(waited)} ms (${this.claims.size} token reservations waiting); this response is not profiled.`);
  }

  /** A token no profile, reservation or claim this process knows of has. */
  private freeToken(): string {
    for (let attempt = 0; attempt < 64; attempt++) {
      const token = randomToken();
      if (this.reserved.has(token) || this.claims.has(token) || this.indexed.has(token) || (attempt < 32 && this.recent.has(token))) continue;
      return token;
    }
    throw new Error('No free profiler token found.');
  }

  /** Creates the file of a token already handed out; `write` waits for it (ownReservation). */
  private claim(token: string): void {
    const settled = this.createReservation(token)
      .then(
        (created) => {
          if (!created) this.loseToken(token, new Error(`Profiler token "${token}" was reserved by another process meanwhile; this profile is not stored.`));
        },
        (error: unknown) => this.loseToken(token, error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => this.claims.delete(token));
    this.claims.set(token, { at: Date.now(), settled });
  }

  private loseToken(token: string, error: Error): void {
    this.reserved.delete(token);
    this.lost.set(token, error);
    // Only a write that never comes leaves an entry here: keep the newest few.
    if (this.lost.size > MAX_LOST) this.lost.delete(this.lost.keys().next().value as string);
  }

  /** Resolves once the token's file is this process's; throws when the claim on it failed. */
  private async ownReservation(token: string): Promise<void> {
    await this.claims.get(token)?.settled;
    const error = this.lost.get(token);
    if (error === undefined) return;
    this.lost.delete(token);
    throw error;
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
        // a claim on the same directory fails too, and its write reports why
      } finally {
        this.refilling = null;
      }
    })();
  }

  private async reserveOne(): Promise<string> {
    for (let attempt = 0; attempt < 64; attempt++) {
      const token = randomToken();
      if (this.reserved.has(token) || this.claims.has(token) || (attempt < 32 && this.recent.has(token))) continue;
      if (!(await this.createReservation(token))) continue;
      this.recent.add(token);
      return token;
    }
    throw new Error('No free profiler token found.');
  }

  /** Creates a token's empty file exclusively; false when it exists (another process's token). */
  private async createReservation(token: string): Promise<boolean> {
    try {
      const fs = await this.prepared();
      const handle = await fs.open(this.profilePath(token), 'wx');
      await handle.close();
      this.failure = null;
      return true;
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      // A directory that fails (missing, read-only) would fail every claim: tokens pause for a while.
      this.failure = { error: error instanceof Error ? error : new Error(String(error)), at: Date.now() };
      throw error;
    }
  }

  /**
   * Profile files are written concurrently; their index lines are added in the order `write` was
   * called (request order), whatever order the files finish in — eviction drops the oldest requests.
   */
  async write(profile: Profile | StoredProfile): Promise<void> {
    const stored = toStored(profile);
    const token = stored.token;
    const target = this.profilePath(token);
    const written = this.ownReservation(token).then(async () => {
      const fs = await this.prepared();
      const tmp = `${this.dir}/.tmp-${token}-${this.pid}-${randomToken()}`;
      await fs.writeFile(tmp, stored.json());
      await fs.rename(tmp, target);
      return fs;
    });
    // Awaited through the queue below, maybe after it failed: not an unhandled rejection meanwhile.
    written.catch(() => {});
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
      const isProfileFile = /^[0-9a-f]{6}\.json$/.test(name);
      if (!isProfileFile && !name.startsWith('.tmp-')) continue;
      if (isProfileFile && (indexed.has(name.slice(0, 6)) || this.reserved.has(name.slice(0, 6)))) continue;
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

  /** Index lines, oldest first; a torn, foreign or ill-typed line is skipped (profile-shape.ts). */
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
        const s: unknown = JSON.parse(line);
        if (isProfileSummary(s)) out.push(s);
      } catch {
        // a partial line from an interrupted append
      }
    }
    this.indexed = new Set(out.map((s) => s.token));
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
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    // A file that is JSON but no profile of this token is as good as a missing one.
    return isProfile(value) && value.token === token ? value : null;
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
    this.lost.clear();
    this.indexed = new Set();
  }
}
