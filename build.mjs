// Bundles src/ into dist/: the library, the Node server entries and the Deno entry.
// One esbuild call, ESM with source maps, so stack traces resolve to src/*.ts.
import { build } from 'esbuild';

const entryPoints = {
  index: 'src/index.ts',
  node: 'src/runtime/node.ts',
  server: 'src/runtime/server.ts',
  deno: 'src/runtime/deno.ts',
};

await build({
  entryPoints,
  outdir: 'dist',
  bundle: true,
  splitting: false,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: ['node20', 'deno2'],
  sourcemap: 'linked',
  sourcesContent: true,
  external: ['node:*'],
  logLevel: 'warning',
  legalComments: 'none',
});
