/**
 * The profiler service (debug mode only): which requests are profiled, their tokens, and reading
 * profiles back. Built once per app from `PROFILER_DSN` (see create-app.ts).
 */
import type { KernelRequest } from '../../http/request.ts';
import { isToken, type Profile, type ProfileSummary } from './profile.ts';
import { createProfileStore, type ProfileStore, type SearchCriteria } from './storage.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Profiler {
  /** Requests a profiler page or the toolbar fragment answered (CONTRACT §6.1: not profiled). */
  private readonly ownPages = new WeakSet<KernelRequest>();

  constructor(readonly store: ProfileStore) {}

  static fromDsn(dsn: string): Profiler {
    return new Profiler(createProfileStore(dsn));
  }

  /**
   * Called by the profiler's own controllers before anything else, as Symfony's call
   * `$profiler->disable()`: what they answer is not profiled. Anything else under `/_profiler` or
   * `/_wdt` is (a routing 404 or 405, the trailing-slash redirect of `/_profiler`), as in Symfony.
   */
  disableFor(request: KernelRequest): void {
    this.ownPages.add(request);
  }

  shouldProfile(request: KernelRequest): boolean {
    return !this.ownPages.has(request);
  }

  /**
   * The profile of a token. A token handed out but not stored yet (the response is out, kernel.terminate
   * has not finished) is waited for up to `waitMs`, so a click on the toolbar right after the page
   * loaded never lands on "not found" (symfony#15462).
   */
  async load(token: string, waitMs = 0): Promise<Profile | null> {
    if (!isToken(token)) return null;
    const deadline = Date.now() + waitMs;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      const profile = await this.store.read(token);
      if (profile) return profile;
      if (Date.now() >= deadline || !(await this.store.isPending(token))) return null;
      await sleep(Math.min(delay, Math.max(1, deadline - Date.now())));
    }
  }

  async latest(): Promise<ProfileSummary | null> {
    return (await this.store.find({ limit: 1 }))[0] ?? null;
  }

  find(criteria: SearchCriteria): Promise<ProfileSummary[]> {
    return this.store.find(criteria);
  }
}
