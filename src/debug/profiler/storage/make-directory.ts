/**
 * `mkdir -p`, one level at a time. Node 20's `mkdir(dir, { recursive: true })` never returns (sync or
 * async, at full CPU) for a path under a file system that refuses new entries with ENOENT, such as
 * `/proc`: it retries the same level forever. Here each level is made once, an existing one is passed
 * over, and the first level that cannot be made ends it with its own error (ENOENT, ENOTDIR, EACCES…).
 * Whether the last level is a directory is the caller's check (an existing file passes here).
 */

type SyncFs = { mkdirSync(path: string): unknown };
type AsyncFs = { mkdir(path: string): Promise<unknown> };

export function makeDirectorySync(fs: SyncFs, dir: string): void {
  for (const level of directoryLevels(dir)) {
    try {
      fs.mkdirSync(level);
    } catch (error) {
      if (!exists(error)) throw error;
    }
  }
}

export async function makeDirectory(fs: AsyncFs, dir: string): Promise<void> {
  for (const level of directoryLevels(dir)) {
    await fs.mkdir(level).catch((error: unknown) => {
      if (!exists(error)) throw error;
    });
  }
}

function exists(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'EEXIST';
}

/** `/a/b/c` → `/a`, `/a/b`, `/a/b/c` (either separator; a relative path's levels are relative). */
export function directoryLevels(dir: string): string[] {
  const levels: string[] = [];
  for (let i = 1; i <= dir.length; i++) {
    if (i === dir.length || dir[i] === '/' || dir[i] === '\\') {
      const level = dir.slice(0, i);
      if (/[^/\\]$/.test(level) && !/^[A-Za-z]:$/.test(level)) levels.push(level);
    }
  }
  return levels;
}
