/**
 * Audit of the profiler's routes, views and stores (2026-11-24): regressions found then.
 */
import assert from 'node:assert/strict';
import { appendFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Profile } from '../../src/debug/profiler/profile.ts';
import { renderWaterfall } from '../../src/debug/profiler/views/waterfall.ts';
import { fixtureRoutes, get, ORIGIN, profiledApp, removeTempDirs, tempDir, tick } from './support.ts';

after(removeTempDirs);

type TestApp = ReturnType<typeof profiledApp>;

async function written(app: TestApp, token: string): Promise<void> {
  const store = app.services.profiler!.store;
  for (let waited = 0; (await store.isPending(token)) && waited < 10_000; waited += 10) await tick(10);
}

describe('profiler audit 2026-11-24', () => {
  test('regression: a numeric start or end outside 9–11 digits was read as a month or a year, not as unix seconds', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const a = (await app.fetch(new Request(`${ORIGIN}/html`), { remoteAddress: '10.0.0.1' })).headers.get('x-debug-token')!;
    const b = (await app.fetch(new Request(`${ORIGIN}/json`), { remoteAddress: '10.0.0.1' })).headers.get('x-debug-token')!;
    await tick(20);
    const list = async (q: string) => [...(await (await get(app, `/_profiler/empty/search/results${q}`)).text()).matchAll(/<tr data-token="([0-9a-f]{6})"/g)].map((m) => m[1]);
    // Profiler::getTimestamp: a numeric value is `'@'.$value`, unix seconds, whatever its length.
    assert.deepEqual(await list('?start=32'), [b, a], 'start=32 is 1970, not 2032');
    assert.deepEqual(await list('?start=49'), [b, a], 'start=49 is 1970, not 2049');
    assert.deepEqual(await list('?end=99999'), [], 'end=99999 is 1970-01-02, not the year 99999');
    assert.deepEqual(await list('?end=12'), [], 'end=12 is 1970, not December 2001');
    assert.deepEqual(await list(`?end=${'9'.repeat(30)}`), [b, a], 'a number past any date is ignored');
    // Dates still read as dates.
    assert.deepEqual(await list('?start=2999-01-01'), []);
    assert.deepEqual(await list('?end=2999-01-01'), [b, a]);
  });

  test('regression: a planted index of many megabytes was read whole by every search and stayed on the disk, appended to', async () => {
    const dir = tempDir();
    const app = profiledApp({ profilerDsn: `file:${dir}?max=3`, routes: fixtureRoutes() });
    const first = (await get(app, '/html')).headers.get('x-debug-token')!;
    await written(app, first);
    const index = join(dir, 'index.ndjson');
    // Far past what 3 profiles' lines take: no store writes this.
    appendFileSync(index, `${'x'.repeat(2 * 1024 * 1024)}\n`);
    const tokens = async () => ((await (await get(app, '/_profiler/empty/search/results?limit=10', { headers: { accept: 'application/json' } })).json()).results as { token: string }[]).map((s) => s.token);
    assert.deepEqual(await tokens(), [], 'an index no store wrote reads as empty');

    const next = (await get(app, '/json')).headers.get('x-debug-token')!;
    await written(app, next);
    assert.ok(statSync(index).size < 64 * 1024, `the next write replaced the planted index (${statSync(index).size} bytes)`);
    assert.deepEqual(await tokens(), [next]);
  });
});

test('regression: a stored profile whose hook is named like an Object property (constructor) put a function\'s source into the waterfall\'s colours', () => {
  const profile = { events: [{ hook: 'constructor', listener: 'X::y', role: 'edited by hand', startMs: 0, durationMs: 1 }], controller: null, durationMs: 2 } as unknown as Profile;
  const svg = renderWaterfall(profile);
  assert.doesNotMatch(svg, /native code|function Object/);
  assert.match(svg, /#6b7280/);
});
