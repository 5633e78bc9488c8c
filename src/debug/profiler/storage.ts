/**
 * Profile storage (CONTRACT §6.3), chosen by `PROFILER_DSN`:
 *
 * - `memory://?max=N&max_bytes=B` (default `max=1000`, `max_bytes=64mb`): the newest N profiles of this
 *   process, also bounded in bytes; the oldest go first.
 * - `file:<dir>?max=N&max_bytes=B` (default `max=1000`, `max_bytes=256mb`): one JSON file per profile
 *   (`<dir>/<token>.json`) plus an index (`<dir>/index.ndjson`, one JSON line per profile, oldest
 *   first). Several processes on one machine share a directory:
 *   - a token is owned by creating its file exclusively (`O_EXCL`); the empty file reads as "pending".
 *     Files are reserved ahead of need, and a response that finds none ready gets a token at once
 *     whose file is created after it (a profile whose token another process took meanwhile is
 *     dropped): a slow or stalled directory never holds a response (file-store.ts, reserveToken);
 *   - a profile is written to a temporary file and renamed over its reservation (readers never see a
 *     half-written profile);
 *   - every change of the index happens under a lock file (`index.lock`, created with `O_EXCL`, broken
 *     when dated more than 5 s from now, either way); the index is rewritten through a temporary file and a rename, so readers
 *     (who take no lock) see either the old or the new index, never a mix;
 *   - the bound is kept by deleting the oldest profiles; leftovers of crashed processes (reservations
 *     never filled, temporary files) are swept after ten minutes.
 *   The file store loads `node:fs/promises` on first use only (dynamic import), so a bundle that never
 *   uses it runs anywhere (Deno, workers); Node and Deno both provide that module.
 *
 * Tokens are checked against /^[0-9a-f]{6}$/ before any file name is built: nothing a client sends can
 * name another file.
 *
 * This file is the storage's entry point and picks a store from the DSN; the pieces are in
 * ./storage/: profile-store.ts (the interface and default bounds), profiler-dsn.ts (parsing the DSN),
 * base-store.ts (reservations and search, shared by both stores), memory-store.ts, file-store.ts and
 * load-fs.ts (how the file store reaches `node:fs/promises`).
 */
import { FileProfileStore } from './storage/file-store.ts';
import { MemoryProfileStore } from './storage/memory-store.ts';
import type { ProfileStore } from './storage/profile-store.ts';
import { parseProfilerDsn } from './storage/profiler-dsn.ts';

export { utf8Length } from './stored.ts';
export { MAX_RESERVATIONS } from './storage/base-store.ts';
export { FileProfileStore } from './storage/file-store.ts';
export { MemoryProfileStore } from './storage/memory-store.ts';
export { DEFAULT_MAX_PROFILES, type ProfileStore, type SearchCriteria } from './storage/profile-store.ts';
export { parseProfilerDsn, type ParsedDsn } from './storage/profiler-dsn.ts';

import { makeDirectorySync } from './storage/make-directory.ts';

export function createProfileStore(dsn: string): ProfileStore {
  const parsed = parseProfilerDsn(dsn);
  if (parsed.kind === 'memory') return new MemoryProfileStore(parsed.max, parsed.maxBytes);
  checkProfileDirectory(parsed.dir);
  return new FileProfileStore(parsed.dir, parsed.max, parsed.maxBytes);
}

/**
 * A file store's directory is created (or found to be one) at start, as Symfony's FileProfilerStorage
 * does in its constructor: a path that is a regular file, or that cannot be created, stops the start
 * with a message naming PROFILER_DSN, instead of a server whose every profiler page fails.
 * Synchronous because the app is built synchronously (createApp). Skipped on a host without
 * `process.getBuiltinModule` (the file store then fails at its first use, as before): a bundle must
 * not import `node:fs` (storage/load-fs.ts).
 */
function checkProfileDirectory(dir: string): void {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = typeof proc?.getBuiltinModule === 'function' ? (proc.getBuiltinModule('node:fs') as typeof import('node:fs') | undefined) : undefined;
  if (!fs) return;
  let why: string | null = null;
  try {
    makeDirectorySync(fs, dir);
    if (!fs.statSync(dir).isDirectory()) why = 'it is not a directory';
  } catch (error) {
    const code = (error as { code?: string }).code;
    why = code === 'EEXIST' || code === 'ENOTDIR' ? 'it is not a directory' : (error as Error).message;
  }
  if (why !== null) throw new Error(`PROFILER_DSN names "${dir}" as the profile directory, which cannot be used: ${why}.`);
}
