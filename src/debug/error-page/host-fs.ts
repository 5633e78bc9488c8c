/**
 * The little file access the error page needs (source maps, code excerpts), without importing
 * `node:fs`: the bundle must load on hosts that have no file system (Workers-style hosts) and
 * render there without excerpts. Node ≥ 20.16 and Deno 2 expose `process.getBuiltinModule`; Deno
 * without it falls back to `Deno.readTextFileSync`. Every call is guarded: a missing file, a denied
 * permission or an absent API reads as null.
 */

interface FsLike {
  readFileSync(path: string, encoding: 'utf8'): string;
  statSync(path: string, options?: { throwIfNoEntry?: boolean }): { size: number; isFile(): boolean } | undefined;
}

interface PathLike {
  resolve(...parts: string[]): string;
  dirname(path: string): string;
  relative(from: string, to: string): string;
  isAbsolute(path: string): boolean;
  sep: string;
}

interface HostProcess {
  getBuiltinModule?: (id: string) => unknown;
  cwd?: () => string;
}

interface DenoLike {
  permissions?: { querySync?: (descriptor: { name: 'read'; path?: string }) => { state: string } };
  readTextFileSync?: (path: string) => string;
  statSync?: (path: string) => { size: number; isFile: boolean };
  cwd?: () => string;
}

/** Files larger than this are never read (a source map of a big bundle stays well below). */
export const MAX_READ_BYTES = 16 * 1024 * 1024;

let fsCache: FsLike | null | undefined;
let pathCache: PathLike | null | undefined;

function hostProcess(): HostProcess | undefined {
  return (globalThis as { process?: HostProcess }).process;
}

function deno(): DenoLike | undefined {
  return (globalThis as { Deno?: DenoLike }).Deno;
}

function builtin<T>(id: string): T | null {
  try {
    const get = hostProcess()?.getBuiltinModule;
    return typeof get === 'function' ? ((get.call(hostProcess(), id) as T | undefined) ?? null) : null;
  } catch {
    return null;
  }
}

function fs(): FsLike | null {
  if (fsCache === undefined) fsCache = builtin<FsLike>('node:fs');
  return fsCache;
}

function path(): PathLike | null {
  if (pathCache === undefined) pathCache = builtin<PathLike>('node:path');
  return pathCache;
}

/**
 * Deno asks the person at the terminal before a read it was not granted; an error page must never
 * do that, so under Deno only reads already granted (`--allow-read`) are attempted.
 */
function readGranted(path?: string): boolean {
  const query = deno()?.permissions?.querySync;
  if (typeof query !== 'function') return true;
  try {
    return query.call(deno()!.permissions, path === undefined ? { name: 'read' } : { name: 'read', path }).state === 'granted';
  } catch {
    return false;
  }
}

/** A text file's contents, or null when it is absent, too large, unreadable, or there is no file system. */
export function readTextFile(file: string, maxBytes = MAX_READ_BYTES): string | null {
  try {
    if (!readGranted(file)) return null;
    const nodeFs = fs();
    if (nodeFs) {
      const stat = nodeFs.statSync(file, { throwIfNoEntry: false });
      if (!stat || !stat.isFile() || stat.size > maxBytes) return null;
      return nodeFs.readFileSync(file, 'utf8');
    }
    const d = deno();
    if (d?.readTextFileSync && d.statSync) {
      const stat = d.statSync(file);
      if (!stat.isFile || stat.size > maxBytes) return null;
      return d.readTextFileSync(file);
    }
  } catch {
    // Missing file, permission denied (Deno without --allow-read), or no file system at all.
  }
  return null;
}

/** The process's working directory: the project root pages show paths relative to ('' when unknown). */
export function workingDirectory(): string {
  try {
    if (!readGranted()) return '';
    const p = hostProcess();
    if (typeof p?.cwd === 'function') return p.cwd();
    const d = deno();
    if (typeof d?.cwd === 'function') return d.cwd();
  } catch {
    // Deno without --allow-read refuses cwd().
  }
  return '';
}

/** `base`'s directory joined with `relative` (a source map's `sources` entry); URL rules without node:path. */
export function resolveBeside(base: string, relative: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(relative) && !/^[a-z]:[\\/]/i.test(relative)) return relative;
  const p = path();
  if (p) return p.resolve(p.dirname(base), relative);
  try {
    return decodeURIComponent(new URL(relative, 'file://' + (base.startsWith('/') ? base : '/' + base)).pathname);
  } catch {
    return relative;
  }
}

/** `file` relative to `root` when it lies inside it, else unchanged. */
export function relativeTo(root: string, file: string): string {
  if (!root || !file) return file;
  const p = path();
  if (p && p.isAbsolute(file)) {
    const rel = p.relative(root, file);
    return rel && !rel.startsWith('..') && !p.isAbsolute(rel) ? rel.split(p.sep).join('/') : file;
  }
  const prefix = root.endsWith('/') ? root : root + '/';
  return file.startsWith(prefix) ? file.slice(prefix.length) : file;
}
