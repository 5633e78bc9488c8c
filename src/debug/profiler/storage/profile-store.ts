/**
 * What a profile store is (`ProfileStore`, the criteria its search takes) and the default bounds that
 * both stores and the DSN parser fall back to. Apart so that each store and the parser depend on this
 * file alone, not on one another.
 */
import type { Profile, ProfileSummary } from '../profile.ts';
import type { StoredProfile } from '../stored.ts';

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
  /**
   * A token that no stored, pending or recently issued profile has; the profile is then pending.
   * Called on the response path: it must not wait for I/O (CONTRACT §6.3). It throws when no token
   * can be had, and the response then goes out unprofiled.
   */
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
export const DEFAULT_MEMORY_BYTES = 64 * 1024 * 1024;
export const DEFAULT_FILE_BYTES = 256 * 1024 * 1024;
