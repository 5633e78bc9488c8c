import { conformanceSuite } from './suite.ts';
import { processTarget } from './targets.ts';

// The README's "any Fetch host": the same suite against the app embedded in Bun.serve (bun from npm).
conformanceSuite('Bun.serve(app.fetch)', () =>
  processTarget('bun embedding', 'node_modules/.bin/bun', ['test/conformance/fixtures/bun-serve.mjs'], {}, { closesOnClientHalfClose: true }),
);
