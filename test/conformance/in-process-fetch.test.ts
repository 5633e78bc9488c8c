import { conformanceSuite } from './suite.ts';
import { fetchTarget } from './targets.ts';

conformanceSuite('in-process app.fetch', async () => fetchTarget());
