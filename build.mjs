// Bundles src/ into dist/: the library, the Node server entries and the Deno entry; then the type
// declarations (dist/types/, what package.json's `types` conditions point at). `--no-types` skips
// them (`npm start` only needs the bundles) and removes the old ones, which would no longer match the
// bundles: a pack or publish that skips the prepack build would ship them.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { bundleOptions } from './scripts/bundle-options.mjs';

await build({
  ...bundleOptions,
  entryPoints: {
    index: 'src/index.ts',
    node: 'src/runtime/node.ts',
    server: 'src/runtime/server.ts',
    deno: 'src/runtime/deno.ts',
  },
  outdir: 'dist',
  logLevel: 'warning',
});

if (process.argv.includes('--no-types')) {
  rmSync('dist/types', { recursive: true, force: true });
} else {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
