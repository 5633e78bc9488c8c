import { conformanceSuite } from './suite.ts';
import { processTarget } from './targets.ts';

conformanceSuite('deno dist/deno.js', () =>
  processTarget('deno bundle', 'node_modules/.bin/deno', ['run', '--allow-net', '--allow-env', '--allow-read', '--no-prompt', 'dist/deno.js'], { DENO_NO_UPDATE_CHECK: '1' }),
);
