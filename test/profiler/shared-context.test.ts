/**
 * Log contexts an application builds from its own data, as the debug page and the profile copy them:
 * objects shared along many paths and byte arrays must cost what they show, not what they hold.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse } from '../../src/index.ts';
import { get, profiledApp, profileOf } from './support.ts';
import { longestKeyList } from '../support/key-lists.ts';

/** Nine levels, each an object whose 50 keys all point at the level below: few objects, 50^9 paths. */
function sharedTree(): Record<string, unknown> {
  let node: Record<string, unknown> = { leaf: true };
  for (let level = 0; level < 9; level++) {
    const up: Record<string, unknown> = {};
    for (let k = 0; k < 50; k++) up[`k${k}`] = node;
    node = up;
  }
  return node;
}

test('regression: a logged context sharing one object along many paths made its profile run out of memory (copied once per path); the copy is cut at a budget of objects', async () => {
  const app = profiledApp({
    routes: [{ name: 'tree', path: '/tree', controller: (request) => { request.logger.info('app', 'loaded', { tree: sharedTree() }); return HttpResponse.text('ok'); } }],
  });
  const profile = await profileOf(app, await get(app, '/tree'));
  const record = profile.logs.find((r) => r.message === 'loaded')!;
  const json = JSON.stringify(record.context);
  assert.ok(json.includes('"[...]"'), 'cut');
  assert.ok(json.length < 2_000_000, `${json.length} characters`);
  assert.equal(Object.keys((record.context as { tree: Record<string, unknown> }).tree).length, 50, 'the first level as logged');
});

test('regression: a typed array in a logged context was listed byte by byte for the debug page and the profile; it is shown as its size', async () => {
  const app = profiledApp({
    routes: [{ name: 'bytes', path: '/bytes', controller: (request) => { request.logger.info('app', 'read', { samples: new Float64Array(300_000) }); throw new Error('after reading'); } }],
  });
  const { result: response, longest } = await longestKeyList(async () => {
    const answer = await get(app, '/bytes');
    await answer.clone().text();
    return answer;
  });
  assert.equal(response.status, 500);
  assert.ok(longest < 10_000, `a list of ${longest} keys`);
  const profile = await profileOf(app, response);
  const record = profile.logs.find((r) => r.message === 'read')!;
  assert.deepEqual(record.context, { samples: '[2400000 bytes]' });
});
