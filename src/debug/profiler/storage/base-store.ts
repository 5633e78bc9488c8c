/**
 * The in-process bookkeeping both stores share: token reservations (expiry, sweeps, their bound), the
 * ring of recently issued tokens, and the search over summaries. Apart from either store so that
 * neither carries the other's code.
 */
import type { ProfileSummary } from '../profile.ts';
import type { SearchCriteria } from './profile-store.ts';

/** Reservations whose profile never came (a host that did not run kernel.terminate) expire. */
export const RESERVATION_TTL_MS = 60_000;
/** Up to this many pending reservations nothing is swept. */
const SWEEP_FROM = 256;
/** Pending reservations kept at most; the oldest are forgotten first. */
export const MAX_RESERVATIONS = 10_000;

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
export abstract class BaseStore {
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
export function search(summaries: ProfileSummary[], criteria: SearchCriteria): ProfileSummary[] {
  const limit = criteria.limit ?? 50;
  const out: ProfileSummary[] = [];
  for (let i = summaries.length - 1; i >= 0 && out.length < limit; i--) {
    if (matches(summaries[i]!, criteria)) out.push(summaries[i]!);
  }
  return out;
}
