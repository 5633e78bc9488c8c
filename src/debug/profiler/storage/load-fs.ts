/**
 * How the file store reaches `node:fs/promises` without importing it: irms-web's bundles are built for
 * the neutral platform (the Deno bundle among them), and one that never uses the file store must load
 * anywhere. A file of its own because this is the one piece a bundler must not see through.
 */

export type Fs = typeof import('node:fs/promises');

/**
 * `node:fs/promises`, loaded on first use: `process.getBuiltinModule` where the host has it (Node ≥
 * 20.16, Deno 2), else a dynamic import the bundler cannot see. A host without a
 * file system fails here, at the first file-store call, never when the bundle loads.
 */
export async function loadFs(): Promise<Fs> {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof proc?.getBuiltinModule === 'function') {
    const fs = proc.getBuiltinModule('node:fs/promises') as Fs | undefined;
    if (fs) return fs;
  }
  // A specifier in a variable: bundlers that build on this bundle leave the import to the host.
  const specifier = 'node:fs/promises';
  return (await import(specifier)) as Fs;
}
