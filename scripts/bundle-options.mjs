// The esbuild settings of every irms-web bundle (dist/ and the tests that bundle on their own):
// ESM for Node 20 and Deno 2, node:* left to the host, linked source maps with the sources inside,
// so stack traces resolve to src/*.ts.
export const bundleOptions = {
  bundle: true,
  splitting: false,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: ['node20', 'deno2'],
  // esbuild does not count Deno among the hosts with import(): without this, an import() whose specifier
  // is not a literal (the optional @hono/node-server adapter) becomes a require() that ESM cannot run.
  supported: { 'dynamic-import': true },
  sourcemap: 'linked',
  sourcesContent: true,
  external: ['node:*'],
  legalComments: 'none',
};
