/**
 * The stored form of a profile (stored.ts) and the per-request shortcuts of the profiler: a profile is
 * serialized once and sized exactly, its listener calls kept by reference; tokens are drawn in
 * batches; links come from URL templates; the resident set size is sampled, not read per request.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { residentMemory, RSS_SAMPLE_MS } from '../../src/debug/profiler/collect.ts';
import { randomToken, TOKEN_PATTERN, type Profile } from '../../src/debug/profiler/profile.ts';
import { tokenUrl } from '../../src/debug/profiler/profiler-listener.ts';
import { MemoryProfileStore } from '../../src/debug/profiler/storage.ts';
import { CallList, callShape, msJsonLength, SerializedProfile, utf8Length, utf8LengthJs } from '../../src/debug/profiler/stored.ts';
import { Router } from '../../src/routing/router.ts';
import { fixtureRoutes, get, ORIGIN, profiledApp, profileOf, tick } from './support.ts';

function randomText(n: number): string {
  const pool = [0x41, 0x7a, 0x22, 0x5c, 0x0a, 0x01, 0x7f, 0x80, 0xe9, 0x7ff, 0x800, 0x2026, 0xd83d, 0xde00, 0xdfff, 0xffff];
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(pool[Math.floor(Math.random() * pool.length)]!);
  return s;
}

describe('stored profiles', () => {
  test('utf8Length (native) and its fallback agree with the encoder, lone surrogates included', () => {
    const encoder = new TextEncoder();
    for (let i = 0; i < 2000; i++) {
      const s = randomText(Math.floor(Math.random() * 12));
      assert.equal(utf8Length(s), encoder.encode(s).byteLength, JSON.stringify(s));
      assert.equal(utf8LengthJs(s), encoder.encode(s).byteLength, JSON.stringify(s));
    }
  });

  test('msJsonLength is the length of JSON.stringify(µs / 1000)', () => {
    const values = [0, 1, 9, 10, 100, 999, 1000, 1001, 1010, 1100, 12_345, 99_999_999, 123_456_789_012, -1, -1500, -0, 1e15, 2 ** 53, NaN, Infinity];
    for (let i = 0; i < 5000; i++) values.push(Math.round(Math.random() * 10 ** Math.floor(Math.random() * 13)));
    for (const us of values) assert.equal(msJsonLength(us), JSON.stringify(us / 1000).length, String(us));
  });

  test('a call list serializes like the profile objects it stands for, and knows its size', () => {
    const shapes = [callShape('kernel.request', 'A::b', 'role "quoted" é'), callShape('kernel.response', 'C::d\u2028', 'other')];
    const times = [0, 12, 1234, 5, 99_999, 100_000];
    const list = new CallList([shapes[0]!, shapes[1]!, shapes[0]!], times);
    const objects = [0, 1, 2].map((i) => ({ hook: [shapes[0], shapes[1], shapes[0]][i]!.hook, listener: [shapes[0], shapes[1], shapes[0]][i]!.listener, role: [shapes[0], shapes[1], shapes[0]][i]!.role, startMs: times[2 * i]! / 1000, durationMs: times[2 * i + 1]! / 1000 }));
    assert.equal(list.json(), JSON.stringify(objects));
    assert.equal(list.bytes, utf8Length(list.json()));
    assert.equal(list.slice(1).json(), JSON.stringify(objects.slice(0, 1)));
    assert.equal(list.slice(1).bytes, utf8Length(JSON.stringify(objects.slice(0, 1))));
    assert.equal(new CallList([], []).json(), '[]');
    assert.equal(new CallList([], []).bytes, 2);
    assert.equal(callShape('kernel.request', 'A::b', 'role "quoted" é'), shapes[0], 'shapes are shared');
  });

  test('a collected profile: its size is the exact UTF-8 length of its JSON; read gives the same JSON back', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const store = app.services.profiler!.store as MemoryProfileStore;
    for (const path of ['/html', '/json', '/nope', '/boom', '/logs', `/html?q=${encodeURIComponent('é"\\\u0001😀')}`]) {
      const r = await get(app, path, { headers: { 'x-note': 'quote " backslash \\ é' } });
      const p = await profileOf(app, r);
      const entry = (store as unknown as { entries: Map<string, { bytes: number; json(): string; summary: { bytes?: number } }> }).entries.get(p.token)!;
      const json = entry.json();
      assert.deepEqual(JSON.parse(json), p, path);
      assert.equal(entry.bytes, utf8Length(json), path);
      assert.equal(entry.bytes, new TextEncoder().encode(JSON.stringify(p)).byteLength, path);
      assert.equal(entry.summary.bytes, entry.bytes, path);
      assert.ok(p.events.length > 0 && p.events.every((e) => typeof e.startMs === 'number' && typeof e.durationMs === 'number'), path);
    }
    let total = 0;
    for (const s of await store.find({ limit: 1000 })) total += s.bytes!;
    assert.equal(store.byteSize, total, 'the byte bound counts exact sizes');
  });

  test('listeners not called: worked out per call sequence, right for each of several alternating routes', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const expected = (p: Profile) => {
      const called = new Set(p.events.map((e) => `${e.hook} ${e.listener}`));
      const out: Profile['notCalledListeners'] = [];
      for (const [hook, list] of Object.entries(app.kernel.hooks)) {
        if (hook === 'kernel.terminate') continue;
        for (const l of list) if (!called.has(`${hook} ${l.id}`)) out.push({ hook: hook as Profile['events'][number]['hook'], listener: l.id, role: l.role });
      }
      return out;
    };
    for (let round = 0; round < 3; round++) {
      for (const path of ['/html', '/nope', '/json', '/boom']) {
        const p = await profileOf(app, await get(app, path));
        assert.deepEqual(p.notCalledListeners, expected(p), `${path} (round ${round})`);
      }
    }
  });

  test('a listener added to the hook table later shows up as not called', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    await profileOf(app, await get(app, '/html'));
    app.kernel.hooks['kernel.view'].push({ id: 'Late::onView', role: 'late listener', call: () => {} });
    const p = await profileOf(app, await get(app, '/html'));
    assert.ok(p.notCalledListeners.some((l) => l.listener === 'Late::onView' && l.hook === 'kernel.view'));
  });

  test('a plain profile object handed to a store is serialized and sized as it is', async () => {
    const store = new MemoryProfileStore(10);
    const token = store.reserveToken();
    const profile = { token, ip: '127.0.0.1', method: 'GET', url: `${ORIGIN}/é`, status: 200, time: 1, parent: null, events: [{ startMs: 0.1234567 }] } as unknown as Profile;
    await store.write(profile);
    assert.deepEqual(await store.read(token), JSON.parse(JSON.stringify(profile)));
    assert.equal(store.byteSize, new SerializedProfile(profile).bytes);
    assert.equal(store.byteSize, utf8Length(JSON.stringify(profile)));
  });

  test('tokens drawn in batches: six hex characters, no repeats among 20,000', () => {
    const seen = new Set<string>();
    let repeats = 0;
    for (let i = 0; i < 20_000; i++) {
      const t = randomToken();
      assert.match(t, TOKEN_PATTERN);
      if (seen.has(t)) repeats++;
      seen.add(t);
    }
    // 20,000 draws from 16.7 million: a handful of birthday collisions at most, never a stuck generator.
    assert.ok(repeats < 60, `${repeats} repeats`);
  });

  test('tokenUrl gives what router.generate gives', () => {
    const router = new Router([
      { name: '_profiler', path: '/_profiler/:token', controller: () => null },
      { name: '_wdt', path: '/deep/_wdt/:token/view', controller: () => null },
      { name: 'static', path: '/static', controller: () => null },
    ]);
    for (const token of ['abcdef', '012345', 'a0b1c2']) {
      for (const base of ['', 'http://x.test', 'http://x.test/', 'https://h:8443//']) {
        for (const name of ['_profiler', '_wdt']) {
          assert.equal(tokenUrl(router, name, token, base), router.generate(name, { token }, { absoluteBase: base }), `${name} ${token} ${base}`);
        }
      }
    }
    // Not a token: the generator decides (here it encodes).
    assert.equal(tokenUrl(router, '_profiler', 'a b'), router.generate('_profiler', { token: 'a b' }));
    // A route without a token parameter: no template, the generator answers (query string).
    assert.equal(tokenUrl(router, 'static', 'abcdef'), router.generate('static', { token: 'abcdef' }));
    assert.throws(() => tokenUrl(router, 'missing', 'abcdef'));
  });

  test('the resident set size is sampled at most every RSS_SAMPLE_MS', async () => {
    await tick(RSS_SAMPLE_MS + 5); // the next call samples afresh
    const first = residentMemory();
    if (first === null) return; // a host that does not tell
    assert.ok(first > 0);
    assert.equal(residentMemory(), first, 'reused within the sampling interval');
    await tick(RSS_SAMPLE_MS + 20);
    const later = residentMemory();
    assert.ok(later !== null && later > 0);
  });
});
