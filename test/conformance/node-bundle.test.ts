import { conformanceSuite } from './suite.ts';
import { processTarget } from './targets.ts';

conformanceSuite('node dist/server.js', () => processTarget('node bundle', process.execPath, ['dist/server.js']));
