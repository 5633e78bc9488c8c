// Bundles src/ into dist/: the library, the Node server entries and the Deno entry.
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
