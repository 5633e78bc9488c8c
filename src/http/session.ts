import type { FlashBag } from '../session/flash-bag.ts';

/**
 * The session as a request sees it. The SessionListener installs a lazy factory on each main request;
 * nothing is read, created or sent until code calls `request.getSession()` and uses it.
 */
export interface Session {
  readonly id: string;
  get<T = unknown>(key: string): T | undefined;
  /** With a fallback, the fallback's type: `get('cart', [])` is never undefined. */
  get<T>(key: string, fallback: T): T;
  set(key: string, value: unknown): void;
  has(key: string): boolean;
  /** Removes `key`; answers the value it held (undefined when none), as Session::remove returns it. */
  remove(key: string): unknown;
  /** The attributes (flashes are the flash bag's). */
  all(): Record<string, unknown>;
  /** Removes the attributes; flashes stay. */
  clear(): void;
  /** Messages shown once (Symfony's FlashBag: `add`, `get`, `peek`, `all`, `has`, `keys`, `set`, `setAll`, `clear`). */
  getFlashBag(): FlashBag;
  /** Gives the session a fresh id (login, privilege change); the old id stops working. */
  migrate(): void;
  /** Drops every value and the id (logout). */
  invalidate(): void;
  /** True once anything read or wrote the session in this request. */
  readonly isStarted: boolean;
  readonly isEmpty: boolean;
}
