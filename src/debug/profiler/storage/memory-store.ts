/**
 * `memory://`: the newest profiles of this process, kept serialized in a Map and bounded by count and
 * bytes. Apart from the file store: nothing here does I/O or needs a file system.
 */
import { isToken, randomToken, type Profile, type ProfileSummary } from '../profile.ts';
import { toStored, type StoredProfile } from '../stored.ts';
import { BaseStore, search } from './base-store.ts';
import { DEFAULT_MAX_PROFILES, DEFAULT_MEMORY_BYTES, type ProfileStore, type SearchCriteria } from './profile-store.ts';

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
