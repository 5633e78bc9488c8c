/**
 * The per-profile bounds that every part of the collector cuts to. A file of their own so that the
 * parts can import them without importing collect.ts, which imports the parts.
 */

/** Per-profile bounds (peers.md §3.3: profiles of 50 MB, disks full of them). */
export const PROFILE_LIMITS = {
  /** Raw request body kept, in characters. */
  content: 64 * 1024,
  logs: 500,
  events: 2000,
  headers: 100,
  headerValue: 4096,
  stack: 16 * 1024,
  /** A member's roles listed (a member read back from a session or a token holds at most 64). */
  roles: 64,
  /** A profile above this (serialized) loses its content, then log contexts, then most logs. */
  profileBytes: 1024 * 1024,
} as const;
