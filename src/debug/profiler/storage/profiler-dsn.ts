/**
 * `PROFILER_DSN` parsed and checked (its forms: ../storage.ts). Pure string work, apart from the
 * stores: they never see a DSN, only the directory and the bounds it gives.
 */
import { parseByteSize } from '../../../app/config.ts';
import { DEFAULT_FILE_BYTES, DEFAULT_MAX_PROFILES, DEFAULT_MEMORY_BYTES } from './profile-store.ts';

export interface ParsedDsn {
  kind: 'memory' | 'file';
  dir: string;
  max: number;
  maxBytes: number;
}

/** `memory://?max=N`, `memory:`, `file:<dir>?max=N`, `file:///abs/dir?max=N`; anything else throws. */
export function parseProfilerDsn(dsn: string): ParsedDsn {
  const fail = (why: string): never => {
    throw new Error(`PROFILER_DSN must be "memory://?max=N" or "file:<dir>?max=N" (${why}), got "${dsn}".`);
  };
  const value = dsn.trim();
  const q = value.indexOf('?');
  const head = q < 0 ? value : value.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : value.slice(q + 1));
  for (const key of params.keys()) if (key !== 'max' && key !== 'max_bytes') fail(`unknown option "${key}"`);
  let kind: 'memory' | 'file';
  let dir = '';
  if (/^memory:(\/\/)?$/i.test(head)) {
    kind = 'memory';
  } else if (/^file:/i.test(head)) {
    kind = 'file';
    dir = head.slice(5);
    if (dir.startsWith('//')) {
      // file:///abs/dir (URL form) — the authority must be empty or localhost.
      const rest = dir.slice(2);
      const slash = rest.indexOf('/');
      const authority = slash < 0 ? rest : rest.slice(0, slash);
      if (authority !== '' && authority !== 'localhost') fail('a file store must be on this machine');
      dir = slash < 0 ? '' : rest.slice(slash);
      try {
        dir = decodeURIComponent(dir);
      } catch {
        fail('malformed percent-encoding');
      }
    }
    dir = dir.replace(/\/+$/, '');
    if (dir === '') fail('no directory');
    if (dir.includes('\0')) fail('NUL in the directory');
  } else {
    return fail('unknown scheme');
  }
  const maxText = params.get('max');
  let max = DEFAULT_MAX_PROFILES;
  if (maxText !== null) {
    if (!/^\d+$/.test(maxText) || Number(maxText) < 1 || Number(maxText) > 1_000_000) fail('max must be an integer between 1 and 1000000');
    max = Number(maxText);
  }
  const bytesText = params.get('max_bytes');
  let maxBytes = kind === 'memory' ? DEFAULT_MEMORY_BYTES : DEFAULT_FILE_BYTES;
  if (bytesText !== null) {
    try {
      maxBytes = parseByteSize('PROFILER_DSN max_bytes', bytesText);
    } catch (error) {
      fail((error as Error).message);
    }
    if (maxBytes < 1024) fail('max_bytes must be at least 1kb');
  }
  return { kind, dir, max, maxBytes };
}
