/**
 * `file:<dir>`: one JSON file per profile plus `index.ndjson`, shared by the processes of one machine
 * (the reservation, rename and lock protocol: ../storage.ts). Apart from the memory store: it is the
 * only store that does I/O and must stay consistent across processes.
 */
import { isToken, randomToken, type Profile, type ProfileSummary } from '../profile.ts';
import { toStored, type StoredProfile } from '../stored.ts';
import { BaseStore, RESERVATION_TTL_MS, search } from './base-store.ts';
import { loadFs, type Fs } from './load-fs.ts';
import { makeDirectory } from './make-directory.ts';
import { PROFILE_LIMITS } from '../collect/limits.ts';
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
/**
 * Profiles handed to `write` and not yet indexed, at most (CONTRACT §10: each one holds its collected
 * profile in memory, and its file is in the directory before eviction counts it). Tokens handed out
 * count too: past this no token is handed out (the response goes unprofiled), and a profile written
 * without one of those tokens is dropped. The bound is a burst's worth of writes, far more than a
 * directory that keeps up needs.
 */
export const MAX_WAITING_WRITES = 256;
/** How long the same store failure is not reported again (a list page asked for every second). */
const REPORT_AGAIN_MS = 60_000;
/**
 * The largest profile file read: twice the collector's bound (PROFILE_LIMITS.profileBytes), so that a
 * profile written by a build with a somewhat larger bound still reads, while a planted huge file does not.
 */
const MAX_PROFILE_FILE_BYTES = 2 * PROFILE_LIMITS.profileBytes;
/**
 * The bytes an index may take per profile of `max`, far above a real line (some 250 bytes; a summary's
 * URL is cut to 2000 characters). An index past `max` times this was planted: it reads as empty and the
 * next write replaces it, as a FIFO planted there is. Read whole, a planted gigabyte was held in memory
 * by every process sharing the directory, and appended to, it stayed on the disk for good.
 */
const MAX_INDEX_LINE_BYTES = 16 * 1024;
/** Evicted profile files unlinked at once: enough to overlap, few enough to leave the libuv pool to others. */
const UNLINK_CHUNK = 8;

/**
 * The index as last read (readIndex): its inode, the bytes read (up to the last newline: a line still
 * being appended is read whole next time), the last few of those bytes (to check that the file still
 * holds them there), and what they held.
 */
interface IndexView {
  ino: number;
  size: number;
  /**
   * The file's size at that read. Past `size` when it ended in a line without its newline: one being
   * appended, or, read under the lock, a torn one (an append cut by a crash or a full disk).
   */
  end: number;
  tail: Uint8Array;
  summaries: ProfileSummary[];
  tokens: Set<string>;
  bytes: number;
}

const NEWLINE = 0x0a;
const TAIL_BYTES = 64;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `length` bytes of a file from `position` (fewer if it is shorter). */
async function readBytes(handle: Awaited<ReturnType<Fs['open']>>, position: number, length: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(bytes, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return bytes.subarray(0, filled);
}

/** A profile whose file is being written, waiting for its index line (`drain`). */
interface PendingLine {
  token: string;
  line: string;
  written: Promise<unknown>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Where the store reports what no request is there to log (a dropped burst, a list read that failed). */
function stderrReport(message: string): void {
  try {
    console.error(`irms-web: ${message}`);
  } catch {
    // nothing left to report to
  }
}

interface Claim {
  at: number;
  settled: Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class FileProfileStore extends BaseStore implements ProfileStore {
  readonly kind = 'file' as const;
  private fsModule: Promise<Fs> | null = null;
  private ready: Promise<void> | null = null;
  /**
   * Index lines waiting, in `write` call order. They are added in batches, one lock and one index read
   * per batch (`drain`): a read of the whole index per profile capped throughput far below what a
   * debug server answers, and the backlog grew without bound.
   */
  private readonly pendingLines: PendingLine[] = [];
  private draining: Promise<void> | null = null;
  /** `write` calls not finished: MAX_WAITING_WRITES, plus at most as many again whose token was handed out before the queue filled. */
  private waiting = 0;
  /** Profiles dropped since the queue last filled up; 0 when it is not full. */
  private dropped = 0;
  private overflowing = false;
  private lastReport: { message: string; at: number } | null = null;
  /**
   * Where failures that no request logs go (stderr by default); the listener still logs a failed
   * `write` itself. Replaceable (tests, an embedding host).
   */
  report: (message: string) => void = stderrReport;
  private lastSweep = 0;
  private readonly pool: { token: string; at: number }[] = [];
  private refilling: Promise<void> | null = null;
  private readonly indexPath: string;
  private readonly lockPath: string;
  private readonly pid = processId();
  /** Tokens handed out whose file is still being created (reserveToken), oldest first. */
  private readonly claims = new Map<string, Claim>();
  /**
   * Tokens handed out (reserveToken) whose profile has not reached `write`, in the order handed out:
   * at most MAX_WAITING_WRITES, since none is handed out past that (refuseWhileQueueFull).
   */
  private readonly admitted = new Map<string, number>();
  /** Claimed tokens whose file could not be created, until their write comes. */
  private readonly lost = new Map<string, Error>();
  /**
   * The parsed index, kept between reads so that a batch reads only the lines appended since: reading
   * and parsing the whole index for every batch stalled the event loop with a large `max`.
   */
  private view: IndexView | null = null;
  /** Index reads run one at a time: each extends `view` from where the previous one stopped. */
  private indexReads: Promise<unknown> = Promise.resolve();
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

  /**
   * The directory, created when missing. A failure is not remembered: the directory may be there at
   * the next attempt. Neither is a success for ever: an ENOENT later (the directory was deleted while
   * running) calls `forgetDirectory`, and the next use creates it again.
   */
  private async prepared(): Promise<Fs> {
    const fs = await this.fs();
    this.ready ??= makeDirectory(fs, this.dir)
      .then(() => fs.stat(this.dir))
      .then((stat) => {
        // A file where the directory should be: say so, not "token taken".
        if (!stat.isDirectory()) throw new Error(`The profile directory "${this.dir}" exists but is not a directory.`);
      })
      .catch((error: unknown) => {
        this.ready = null;
        throw error;
      });
    await this.ready;
    return fs;
  }

  private forgetDirectory(error: unknown): void {
    if (errorCode(error) === 'ENOENT') this.ready = null;
  }

  /** Reports a message, not the same one twice within REPORT_AGAIN_MS. */
  private reportOnce(message: string): void {
    const now = Date.now();
    if (this.lastReport && this.lastReport.message === message && now - this.lastReport.at < REPORT_AGAIN_MS) return;
    this.lastReport = { message, at: now };
    try {
      this.report(message);
    } catch {
      // reporting must never break storage
    }
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
   * than linking responses to profiles that cannot be stored. So does a write queue that is full (or
   * has overflowed and not yet drained to half): that response's profile would be dropped, and its
   * link would point to nothing.
   */
  reserveToken(): string {
    this.refuseWhileQueueFull();
    let token = this.takePooled();
    this.refill();
    if (token === null) {
      this.refuseWhileStalled();
      token = this.freeToken();
      this.reserveLocal(token);
      this.claim(token);
    }
    this.admitted.set(token, Date.now());
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

  /**
   * Responses that got a token and have not reached `write` yet count against the queue's bound as
   * if queued: each of them will be, and its profile is then never dropped (write). Those whose write
   * never came (a host that skips kernel.terminate) stop counting after RESERVATION_TTL_MS.
   */
  private refuseWhileQueueFull(): void {
    const cutoff = Date.now() - RESERVATION_TTL_MS;
    for (const [token, at] of this.admitted) {
      if (at >= cutoff) break;
      this.admitted.delete(token);
    }
    if (this.waiting + this.admitted.size < MAX_WAITING_WRITES && !this.overflowing) return;
    throw new Error(`The profile write queue is full (${this.waiting} profiles waiting for "${this.dir}", ${this.admitted.size} responses about to add theirs); this response is not profiled.`);
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
      if (this.reserved.has(token) || this.claims.has(token) || this.view?.tokens.has(token) === true || (attempt < 32 && this.recent.has(token))) continue;
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

  /**
   * Creates a token's empty file exclusively; false when it exists (another process's token). Only
   * the EEXIST of that open means "taken": the directory's own errors are failures (prepared). An
   * ENOENT means the directory went away: it is created again, once.
   */
  private async createReservation(token: string): Promise<boolean> {
    try {
      for (let attempt = 0; ; attempt++) {
        const fs = await this.prepared();
        try {
          const handle = await fs.open(this.profilePath(token), 'wx');
          await handle.close();
          this.failure = null;
          return true;
        } catch (error) {
          if (errorCode(error) === 'EEXIST') return false;
          if (errorCode(error) !== 'ENOENT' || attempt > 0) throw error;
          this.forgetDirectory(error);
        }
      }
    } catch (error) {
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
    const token = profile.token;
    const target = this.profilePath(token);
    const admittedAt = this.admitted.get(token);
    this.admitted.delete(token);
    // A token reserveToken handed out was counted against the bound then: its link must lead somewhere.
    const counted = admittedAt !== undefined && admittedAt >= Date.now() - RESERVATION_TTL_MS;
    if (!counted && this.waiting >= MAX_WAITING_WRITES) return this.drop(token);
    this.waiting++;
    try {
      const stored = toStored(profile);
      const written = this.ownReservation(token).then(() => this.writeProfileFile(token, target, stored.json()));
      // Awaited by `drain`, maybe after it failed: not an unhandled rejection meanwhile.
      written.catch(() => {});
      const line = JSON.stringify(stored.summary) + '\n';
      // The line is queued now, before any await: that fixes the index order.
      await new Promise<void>((resolve, reject) => {
        this.pendingLines.push({ token, line, written, resolve, reject });
        this.draining ??= this.drain();
      });
    } finally {
      this.waiting--;
      this.reserved.delete(token);
      if (this.overflowing && this.waiting <= MAX_WAITING_WRITES / 2) this.endOverflow();
    }
  }

  /**
   * A profile past MAX_WAITING_WRITES: not stored. Its empty reservation file stays until the sweep
   * removes it (SWEEP_AGE_MS): other processes keep seeing the token as taken, so it is not handed out
   * again while a client may still hold a link to it. Only the first of a burst rejects (the listener
   * logs it as "could not store"); the rest of the burst are counted and reported once when the queue
   * has drained to half, so a flood does not log a line per request.
   */
  private async drop(token: string): Promise<void> {
    this.reserved.delete(token);
    // The claim settles on its own; only its failure record would be left behind.
    void this.ownReservation(token).catch(() => {});
    this.dropped++;
    if (this.overflowing) return;
    this.overflowing = true;
    throw new Error(`The profile write queue is full (${MAX_WAITING_WRITES} profiles waiting for "${this.dir}"); profiles are not stored until it drains.`);
  }

  private endOverflow(): void {
    this.overflowing = false;
    const dropped = this.dropped;
    this.dropped = 0;
    if (dropped > 1) this.reportOnce(`The profiler did not store ${dropped} profiles: the write queue for "${this.dir}" was full.`);
  }

  /**
   * Writes a profile's file through a temporary file renamed over its reservation. On failure (a full
   * disk, the directory gone) both the temporary file and the empty reservation are removed: nothing
   * else would remove them while writes keep failing.
   */
  private async writeProfileFile(token: string, target: string, json: string): Promise<Fs> {
    const fs = await this.prepared();
    const tmp = `${this.dir}/.tmp-${token}-${this.pid}-${randomToken()}`;
    try {
      // 'wx': a planted file or symlink of that name is refused, never written through.
      await fs.writeFile(tmp, json, { flag: 'wx' });
      await fs.rename(tmp, target);
      return fs;
    } catch (error) {
      this.forgetDirectory(error);
      await fs.unlink(tmp).catch(() => {});
      await fs.unlink(target).catch(() => {});
      throw error;
    }
  }

  /**
   * Adds the queued index lines, oldest first, a batch at a time: every line whose profile file is
   * written (or failed) is in the batch, under one lock and one read of the index. A line whose file
   * failed is left out and its write rejects with that failure.
   */
  private async drain(): Promise<void> {
    try {
      while (this.pendingLines.length > 0) {
        const batch = this.pendingLines.splice(0);
        const results = await Promise.allSettled(batch.map((p) => p.written));
        const ready: PendingLine[] = [];
        batch.forEach((p, i) => {
          const result = results[i]!;
          if (result.status === 'fulfilled') ready.push(p);
          else p.reject(result.reason);
        });
        if (ready.length === 0) continue;
        let fs: Fs | undefined;
        let evicted: readonly ProfileSummary[];
        try {
          fs = await this.fs();
          const loaded = fs;
          evicted = await this.withLock(loaded, () => this.addToIndex(loaded, ready));
        } catch (error) {
          this.forgetDirectory(error);
          // Their files are written but not indexed: nothing counts them against max and max_bytes,
          // and the sweep only runs with a rewrite of the index, which fails too. While the index
          // could not be written (another user's file, a lock never freed, a full disk) every
          // profile stayed, and the directory grew with the traffic. Their writes fail: they go.
          if (fs) await this.unlinkProfiles(fs, ready.map((p) => p.token));
          for (const p of ready) p.reject(error);
          continue;
        }
        // Out of the index already: their files go after the lock is released (a rewrite evicts a
        // tenth of `max` at once), and before the writes resolve.
        await this.unlinkProfiles(fs, evicted.map((s) => s.token));
        for (const p of ready) p.resolve();
      }
    } finally {
      this.draining = null;
    }
  }

  /** Removes profile files a few at a time (UNLINK_CHUNK); a file already gone is no failure. */
  private async unlinkProfiles(fs: Fs, tokens: readonly string[]): Promise<void> {
    for (let i = 0; i < tokens.length; i += UNLINK_CHUNK) {
      await Promise.all(tokens.slice(i, i + UNLINK_CHUNK).map((t) => (isToken(t) ? fs.unlink(this.profilePath(t)).catch(() => {}) : null)));
    }
  }

  /**
   * Adds a batch to the index, under the lock; returns the evicted summaries, whose files the caller
   * removes. Usually an append. Past a bound the index is rewritten down to 90 % of that bound, so the
   * next rewrite (which serializes the whole index) is about a tenth of `max` profiles away, not one
   * batch. Below 10 profiles the bound is kept exactly.
   */
  private async addToIndex(fs: Fs, batch: readonly PendingLine[]): Promise<readonly ProfileSummary[]> {
    const view = await this.readIndex(fs);
    const added = batch.map((p) => JSON.parse(p.line) as ProfileSummary);
    let bytes = view.bytes;
    for (const s of added) bytes += s.bytes ?? 0;
    const rewritten = batch.some((p) => view.tokens.has(p.token));
    if (!rewritten && view.summaries.length + added.length <= this.max && bytes <= this.maxBytes) {
      // Read under the lock, an index that does not end in a newline ends in a torn line: appended
      // to, it would swallow the batch's first line (that profile missing from every list). A newline
      // first leaves the fragment a line of its own, skipped like any torn line.
      const torn = view.end > view.size ? '\n' : '';
      // A symlink or other non-regular index is not appended to: it is replaced by the rewrite below.
      if (await this.appendIndex(fs, torn + batch.map((p) => p.line).join(''))) return [];
    }
    const tokens = new Set(added.map((s) => s.token));
    const kept = view.summaries.filter((s) => !tokens.has(s.token));
    kept.push(...added);
    bytes = 0;
    for (const s of kept) bytes += s.bytes ?? 0;
    const maxCount = kept.length > this.max ? this.max - Math.floor(this.max / 10) : this.max;
    const maxBytes = bytes > this.maxBytes ? this.maxBytes - Math.floor(this.maxBytes / 10) : this.maxBytes;
    let drop = 0;
    while (kept.length - drop > 1 && (kept.length - drop > maxCount || bytes > maxBytes)) bytes -= kept[drop++]!.bytes ?? 0;
    const evicted = kept.splice(0, drop);
    const tmp = `${this.dir}/.tmp-index-${this.pid}-${randomToken()}`;
    try {
      await fs.writeFile(tmp, kept.map((s) => JSON.stringify(s)).join('\n') + '\n', { flag: 'wx' });
      await fs.rename(tmp, this.indexPath);
    } catch (error) {
      await fs.unlink(tmp).catch(() => {});
      throw error;
    }
    // A new file: the next read parses it whole, once per rewrite.
    this.view = null;
    if (Date.now() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = Date.now();
      await this.sweep(fs, new Set(kept.map((s) => s.token))).catch(() => {});
    }
    return evicted;
  }

  /**
   * Appends to the index without following a symlink: anyone who can create entries in a shared
   * directory could otherwise plant `index.ndjson` -> any file the server may write, and have profile
   * summaries appended there. O_NOFOLLOW where the platform has it, and a check that what
   * was opened is a regular file everywhere. False when the index is no regular file (the caller
   * rewrites it through rename, which replaces the entry itself).
   */
  private async appendIndex(fs: Fs, text: string): Promise<boolean> {
    const c = fs.constants;
    let handle: Awaited<ReturnType<Fs['open']>>;
    try {
      // O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader; without one it fails
      // with ENXIO, and the FIFO is replaced like a symlink.
      handle = await fs.open(this.indexPath, c.O_WRONLY | c.O_APPEND | c.O_CREAT | (c.O_NOFOLLOW ?? 0) | (c.O_NONBLOCK ?? 0), 0o666);
    } catch (error) {
      if (errorCode(error) === 'ELOOP' || errorCode(error) === 'ENXIO') return false;
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size + text.length > this.maxIndexBytes()) return false;
      await handle.appendFile(text);
      return true;
    } finally {
      await handle.close().catch(() => {});
    }
  }

  /** Removes reservations never filled and temporary files left by crashed processes. */
  private async sweep(fs: Fs, indexed: Set<string>): Promise<void> {
    const now = Date.now();
    for (const name of await fs.readdir(this.dir)) {
      const isProfileFile = /^[0-9a-f]{6}\.json$/.test(name);
      if (!isProfileFile && !name.startsWith('.tmp-')) continue;
      if (isProfileFile && (indexed.has(name.slice(0, 6)) || this.reserved.has(name.slice(0, 6)))) continue;
      const path = `${this.dir}/${name}`;
      const stat = await fs.stat(path).catch(() => null);
      // Dated far ahead counts as old too: such a file would otherwise outlive every sweep until then.
      if (stat && Math.abs(now - stat.mtimeMs) > SWEEP_AGE_MS) await fs.unlink(path).catch(() => {});
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
      // lstat: the lock entry itself. stat followed a symlink planted as the lock, and a dangling one
      // was never found stale, so no profile was indexed again.
      const stat = await fs.lstat(this.lockPath).catch(() => null);
      // Dated ahead counts too: a lock left by a crash before the clock was stepped back (NTP, a
      // resumed VM) stayed "fresh" for as long as the step, and no profile was indexed meanwhile.
      if (stat && Math.abs(Date.now() - stat.mtimeMs) > LOCK_STALE_MS) {
        // The holder died: a lock is held for milliseconds, never seconds. A lock that cannot be
        // removed (a directory of that name, another user's file) falls through to the deadline and
        // the sleep: retrying at once would spin a core for ever.
        const removed = await fs.unlink(this.lockPath).then(
          () => true,
          () => false,
        );
        if (removed) continue;
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

  /**
   * Index lines, oldest first; a torn, foreign or ill-typed line is skipped (profile-shape.ts). A
   * symlink planted as the index is not followed: it reads as empty, and the next write replaces it.
   *
   * Only the bytes appended since the last read are read and parsed. Other processes change the index
   * in two ways only, under the lock: they append to it, or rename a rewritten one over it (a new
   * inode; should the number be reused, the bytes before the last offset differ). Anything else (a
   * shorter file, another inode, other bytes at the last offset) reads the file whole again.
   */
  private readIndex(fs: Fs): Promise<IndexView> {
    const read = this.indexReads.then(() => this.readIndexNow(fs));
    this.indexReads = read.catch(() => {});
    return read;
  }

  private maxIndexBytes(): number {
    return this.max * MAX_INDEX_LINE_BYTES;
  }

  /** What an absent (or unusable) index reads as. */
  private noIndex(): IndexView {
    this.view = null;
    return { ino: -1, size: 0, end: 0, tail: new Uint8Array(0), summaries: [], tokens: new Set(), bytes: 0 };
  }

  private async readIndexNow(fs: Fs): Promise<IndexView> {
    const c = fs.constants;
    let handle: Awaited<ReturnType<Fs['open']>>;
    try {
      // O_NONBLOCK: a FIFO planted as the index would block this open for ever, and every index
      // read queued behind it (searches, `latest`, each batch's drain under the lock).
      handle = await fs.open(this.indexPath, c.O_RDONLY | (c.O_NOFOLLOW ?? 0) | (c.O_NONBLOCK ?? 0));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ELOOP') throw error;
      return this.noIndex();
    }
    try {
      const stat = await handle.stat();
      // Not a regular file (a FIFO, a device), or one no store writes: read as empty, replaced by the
      // next write (appendIndex).
      if (!stat.isFile() || stat.size > this.maxIndexBytes()) return this.noIndex();
      let view = this.view;
      const unchanged = view !== null && view.ino === stat.ino && stat.size >= view.size && sameBytes(await readBytes(handle, view.size - view.tail.length, view.tail.length), view.tail);
      if (!unchanged || view === null) view = { ino: stat.ino, size: 0, end: 0, tail: new Uint8Array(0), summaries: [], tokens: new Set(), bytes: 0 };
      view.end = stat.size;
      const appended = await readBytes(handle, view.size, stat.size - view.size);
      const end = appended.lastIndexOf(NEWLINE) + 1;
      if (end > 0) {
        for (const line of new TextDecoder().decode(appended.subarray(0, end)).split('\n')) {
          if (!line) continue;
          try {
            const s: unknown = JSON.parse(line);
            if (!isProfileSummary(s)) continue;
            view.summaries.push(s);
            view.tokens.add(s.token);
            view.bytes += s.bytes ?? 0;
          } catch {
            // a partial line from an interrupted append
          }
        }
        view.size += end;
        view.tail = appended.slice(Math.max(0, end - TAIL_BYTES), end);
      }
      this.view = view;
      return view;
    } finally {
      await handle.close().catch(() => {});
    }
  }

  async read(token: string): Promise<Profile | null> {
    if (!isToken(token)) return null;
    const fs = await this.fs();
    const text = await this.readRegularFile(fs, this.profilePath(token));
    if (!text) return null; // missing, no regular file, or a reservation: pending
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    // A file that is JSON but no profile of this token is as good as a missing one.
    return isProfile(value) && value.token === token ? value : null;
  }

  /**
   * A profile file's text; null when it is missing or no regular file. Opened non-blocking: a FIFO
   * planted under a token's name (anyone who can create entries in a shared directory can) would
   * otherwise block the open, and with it one of libuv's four pool threads, for ever: four page views
   * stopped every file operation of the process. A device (a symlink to /dev/zero) is not read either.
   * Nor is a file past MAX_PROFILE_FILE_BYTES, which no collector writes: read whole, a planted
   * gigabyte was held in memory, as bytes and again as text, for each view of its token.
   */
  private async readRegularFile(fs: Fs, path: string): Promise<string | null> {
    let handle: Awaited<ReturnType<Fs['open']>>;
    try {
      handle = await fs.open(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    } catch {
      return null;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > MAX_PROFILE_FILE_BYTES) return null;
      // One byte more than the size seen is asked for: a file that grew after the stat is not read on.
      // The store renames whole files into place, so only someone else's appends make one grow.
      const bytes = new Uint8Array(stat.size + 1);
      let filled = 0;
      for (let got = -1; got !== 0; filled += got) {
        if (filled === bytes.length) return null;
        got = (await handle.read(bytes, filled, bytes.length - filled, filled)).bytesRead;
      }
      return new TextDecoder().decode(bytes.subarray(0, filled));
    } catch {
      return null;
    } finally {
      await handle.close().catch(() => {});
    }
  }

  async isPending(token: string): Promise<boolean> {
    if (!isToken(token)) return false;
    if (this.isLocallyReserved(token)) return true;
    const fs = await this.fs();
    const stat = await fs.stat(this.profilePath(token)).catch(() => null);
    // Either way from now, as the lock's age is read: an empty file dated ahead (a clock stepped back,
    // or planted) would otherwise be waited for on every view of its token until that date.
    return stat !== null && stat.size === 0 && Math.abs(Date.now() - stat.mtimeMs) < RESERVATION_TTL_MS;
  }

  /**
   * Summaries from the index. An index that cannot be read (the path is no directory, permissions)
   * lists nothing and is reported, rather than making every list page a 500.
   */
  async find(criteria: SearchCriteria = {}): Promise<ProfileSummary[]> {
    const fs = await this.fs();
    let all: ProfileSummary[];
    try {
      all = (await this.readIndex(fs)).summaries;
    } catch (error) {
      this.reportOnce(`The profiler could not read the index of "${this.dir}": ${toError(error).message}`);
      return [];
    }
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
    this.admitted.clear();
    this.view = null;
  }
}
