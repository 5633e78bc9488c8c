import { conformanceSuite } from './suite.ts';
import { inProcessTarget } from './targets.ts';

conformanceSuite('in-process app.handle', async () => inProcessTarget());
