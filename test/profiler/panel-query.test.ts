/**
 * The `panel` query of `/_profiler/<token>` as Symfony 5.4's ProfilerController::panelAction reads it:
 * only an absent `panel` picks the default one, and the 404 of a panel that does not exist names the
 * profile's token, also when the page was asked for as `latest`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixtureRoutes, get, profiledApp, profileOf } from './support.ts';

describe('profiler: the panel query', () => {
  test('regression: `?panel=` (empty) showed the default panel; Symfony answers 404, as for any panel it does not have', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const profile = await profileOf(app, await get(app, '/logs'));
    const empty = await get(app, `/_profiler/${profile.token}?panel=`);
    assert.equal(empty.status, 404);
    assert.ok((await empty.text()).includes(`Panel &quot;&quot; is not available for token &quot;${profile.token}&quot;.`));
    const absent = await get(app, `/_profiler/${profile.token}`);
    assert.equal(absent.status, 200);
    assert.ok((await absent.text()).includes('data-panel="request"'));
  });

  test('regression: the 404 of an unknown panel of `latest` named the token "latest", not the profile shown', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const profile = await profileOf(app, await get(app, '/logs'));
    const r = await get(app, '/_profiler/latest?panel=nope');
    assert.equal(r.status, 404);
    assert.ok((await r.text()).includes(`Panel &quot;nope&quot; is not available for token &quot;${profile.token}&quot;.`));
  });
});
