/**
 * The profile JSON writer (profile-json.ts): the same text as JSON.stringify, whether its remembered
 * parts are reused, replaced or forgotten.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMPARED_FIELDS, forgetProfileJson, headJson, sameJson, tailJson } from '../../src/debug/profiler/profile-json.ts';
import type { Profile } from '../../src/debug/profiler/profile.ts';
import { utf8Length, type ProfileHead, type ProfileTail } from '../../src/debug/profiler/stored.ts';
import { MemoryProfileStore } from '../../src/debug/profiler/storage.ts';
import { PROFILE_LIMITS } from '../../src/debug/profiler/collect.ts';
import { HttpResponse, type KernelRequest } from '../../src/index.ts';
import { fixtureRoutes, get, profiledApp, profileOf } from './support.ts';

/** A profile split as collect.ts builds it: the keys before `events`, and after `notCalledListeners`. */
function split(profile: Profile): { head: ProfileHead; tail: ProfileTail } {
  const head: Record<string, unknown> = {};
  const tail: Record<string, unknown> = {};
  let inTail = false;
  for (const [key, value] of Object.entries(profile)) {
    if (key === 'events' || key === 'notCalledListeners') inTail = true;
    else (inTail ? tail : head)[key] = value;
  }
  return { head: head as unknown as ProfileHead, tail: tail as unknown as ProfileTail };
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function assertWritten(head: ProfileHead, tail: ProfileTail, what: string): void {
  assert.equal(headJson(head), JSON.stringify(head), `${what}: head`);
  assert.equal(tailJson(tail), JSON.stringify(tail), `${what}: tail`);
}

const ODD = 'quote " backslash \\ é \u0001 \u2028 😀 \ud800 end';
/** What a URL can carry (no lone surrogate) and a header value (Latin-1, no control character). */
const ODD_URL = 'quote " backslash \\ é \u2028 😀 end';
const ODD_HEADER = 'quote " backslash \\ é end';

async function profiles(): Promise<Profile[]> {
  const app = profiledApp({ routes: fixtureRoutes() });
  const out: Profile[] = [];
  for (const path of ['/html', '/json', '/nope', '/boom', '/logs', '/redirect', `/html?q=${encodeURIComponent(ODD_URL)}&n=1`]) {
    out.push(await profileOf(app, await get(app, path, { headers: { 'x-note': ODD_HEADER, cookie: 'a=1; b=2' } })));
  }
  return out;
}

describe('profile JSON writer', () => {
  test('writes what JSON.stringify writes, sized exactly, for each fixture route and again from memory', async () => {
    const all = await profiles();
    for (let round = 0; round < 3; round++) {
      for (const p of all) {
        const { head, tail } = split(copy(p));
        assertWritten(head, tail, `${p.url} round ${round}`);
        // The same profile twice in a row: the remembered parts are reused.
        assertWritten(copy(head), copy(tail), `${p.url} again`);
      }
    }
  });

  test('the parts compared field by field have exactly the fields compared', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const p = await profileOf(app, await get(app, '/html', { headers: { cookie: 'IRMSSESSID=abc' } }));
    assert.deepEqual(Object.keys(p.request), COMPARED_FIELDS.request);
    assert.ok(p.session, 'a session cookie gives a session part');
    assert.deepEqual(Object.keys(p.session), COMPARED_FIELDS.session);
    assert.deepEqual(Object.keys(p.security), COMPARED_FIELDS.security);
    assert.deepEqual(Object.keys(p.routing), COMPARED_FIELDS.routing);
  });

  test('a part that differs from the remembered one by one nested value is written anew', async () => {
    const [p] = await profiles();
    const { head, tail } = split(p!);
    assertWritten(head, tail, 'first');
    const changes: ((h: ProfileHead, t: ProfileTail) => void)[] = [
      (h) => void (h.request.headers['x-note'] = 'other'),
      (h) => void (h.request.attributes._route = ODD),
      (h) => void (h.request.query = { '2': 'b', '1': 'a', z: [1, { y: null }] }),
      (h) => void (h.response.headers['x-extra'] = ODD),
      (h) => void (h.ip = '10.0.0.1'),
      (h) => void (h.status = 404),
      (h) => void (h.memory = null),
      (h) => void (h.totalMs = 1.5),
      (h) => void (h.security.memberId = { nested: [ODD] }),
      (h) => void (h.security.authenticated = !h.security.authenticated),
      (h) => void (h.routing.params = { id: ODD }),
      (h) => void (h.routing.redirect = { status: 302, location: '/x' }),
      (h) => void (h.request.content = ODD),
      (h) => void (h.request.isXmlHttpRequest = true),
      (h) => void (h.request.cookies = [{ name: 'a', value: '***' }]),
      (h) => void (h.session = { id: 'abcd…', started: true, attributes: { a: [] } }),
      (h) => void (h.session!.attributes = { a: [1] }),
      (h) => void (h.session = null),
      (_, t) => void (t.logs = [{ datetime: '2026-01-01T00:00:00.000Z', level: 200, level_name: 'INFO', channel: 'app', message: ODD, context: { k: ODD } }]),
      (_, t) => void ((t.logs[0]!.context as Record<string, unknown>).k = 'changed'),
      (_, t) => void (t.exception = { class: 'E', message: ODD, status: 500, file: 'f.ts', line: 1, stack: ODD, previous: null }),
      (_, t) => void (t.collectors = { custom: JSON.parse('{"__proto__":1,"2":2,"1":1}') }),
    ];
    let h = copy(head);
    let t = copy(tail);
    for (const [i, change] of changes.entries()) {
      h = copy(h);
      t = copy(t);
      change(h, t);
      assertWritten(h, t, `change ${i}`);
      assertWritten(copy(h), copy(t), `change ${i} again`);
    }
  });

  test('values JSON.stringify leaves out, or arrays and objects of another kind, fall back to JSON.stringify', async () => {
    const [p] = await profiles();
    const { head, tail } = split(p!);
    const h = copy(head) as unknown as Record<string, unknown>;
    h.route = undefined;
    h.controller = () => 'x';
    (h.response as Record<string, unknown>).headers = new Map([['a', 'b']]);
    const t = copy(tail) as unknown as Record<string, unknown>;
    t.truncated = [undefined, () => 1];
    t.logs = [undefined, 'x'];
    assertWritten(h as unknown as ProfileHead, t as unknown as ProfileTail, 'odd values');
  });

  test('more log records and headers than are remembered are still all written', async () => {
    const [p] = await profiles();
    const { head, tail } = split(p!);
    for (let round = 0; round < 2; round++) {
      const h = copy(head);
      const t = copy(tail);
      for (let i = 0; i < 100; i++) h.response.headers[`x-h${i}`] = `v${i}`;
      t.logs = Array.from({ length: 100 }, (_, i) => ({ datetime: '2026-01-01T00:00:00.000Z', level: 100, level_name: 'DEBUG', channel: 'app', message: `m${i % 3}`, context: { i: i % 2 } }));
      assertWritten(h, t, `round ${round}`);
    }
  });

  test('after forgetProfileJson, edits of a remembered part show', async () => {
    const [p] = await profiles();
    const { head, tail } = split(copy(p!));
    assertWritten(head, tail, 'before');
    forgetProfileJson();
    head.request.content = null;
    head.request.attributes = {};
    for (const r of tail.logs) r.context = {};
    tail.collectors = {};
    assertWritten(head, tail, 'after the edits');
  });

  test('profiles over the byte bound: cut as before, and the profiles after them are written right', async () => {
    const routes = [
      ...fixtureRoutes(),
      {
        name: 'big',
        path: '/big',
        controller: (request: KernelRequest) => {
          for (let i = 0; i < 300; i++) request.logger.info('app', 'Row {i}', { i, blob: `${i}`.padEnd(4000, 'x') });
          return HttpResponse.html('<html><body>big</body></html>');
        },
      },
      {
        name: 'small',
        path: '/small',
        controller: (request: KernelRequest) => {
          // The same line as /big's first row, without a context: what a cut /big record looks like.
          request.logger.info('app', 'Row 0');
          return HttpResponse.html('<html><body>small</body></html>');
        },
      },
    ];
    const app = profiledApp({ routes });
    const store = app.services.profiler!.store as MemoryProfileStore;
    const entries = (store as unknown as { entries: Map<string, { bytes: number; json(): string }> }).entries;
    for (const path of ['/logs', '/logs', '/big', '/small', '/logs', '/big', '/big', '/small', '/logs', '/html']) {
      const p = await profileOf(app, await get(app, path));
      const entry = entries.get(p.token)!;
      const json = entry.json();
      assert.equal(JSON.stringify(JSON.parse(json)), json, path);
      assert.equal(entry.bytes, utf8Length(json), path);
      assert.ok(entry.bytes <= PROFILE_LIMITS.profileBytes, path);
      if (path === '/big') {
        assert.deepEqual(p.truncated, ['log contexts'], path);
        const rows = p.logs.filter((l) => l.message.startsWith('Row '));
        assert.equal(rows.length, 300);
        assert.ok(p.logs.every((l) => JSON.stringify(l.context) === '{}'));
        assert.equal(rows[299]!.message, 'Row 299');
      } else {
        assert.deepEqual(p.truncated, [], path);
        if (path === '/logs') assert.deepEqual(p.logs.find((l) => l.channel === 'cache')?.context, { key: 'k1' });
        if (path === '/small') assert.deepEqual(p.logs.find((l) => l.message === 'Row 0')?.context, {});
      }
    }
  });

  test('sameJson: true only when JSON.stringify would agree', () => {
    const same: [unknown, unknown][] = [
      [{ a: 1, b: [1, 'x', null] }, { a: 1, b: [1, 'x', null] }],
      [Object.assign(Object.create(null), { a: 1 }), { a: 1 }],
      [[], []],
      ['x', 'x'],
    ];
    const different: [unknown, unknown][] = [
      [{ a: 1, b: 2 }, { b: 2, a: 1 }],
      [{ a: 1 }, { a: 1, b: 2 }],
      [[1], { 0: 1 }],
      [{ a: NaN }, { a: NaN }],
      [new Date(0), new Date(0)],
      [{ a: [1, 2] }, { a: [1, 3] }],
      [null, {}],
    ];
    for (const [a, b] of same) assert.equal(sameJson(a, b), true, JSON.stringify(a));
    for (const [a, b] of different) assert.equal(sameJson(a, b), false, `${JSON.stringify(a)} / ${JSON.stringify(b)}`);
  });

  test('stored profiles are the canonical JSON of what they hold, for routes alternating', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const store = app.services.profiler!.store as MemoryProfileStore;
    const entries = (store as unknown as { entries: Map<string, { bytes: number; json(): string }> }).entries;
    for (let i = 0; i < 3; i++) {
      for (const path of ['/html', '/nope', `/json?x=${encodeURIComponent(ODD_URL)}`, '/logs']) {
        const p = await profileOf(app, await get(app, path, { headers: { 'x-note': i % 2 ? ODD_HEADER : 'plain' } }));
        const json = entries.get(p.token)!.json();
        assert.equal(JSON.stringify(JSON.parse(json)), json, path);
        assert.equal(entries.get(p.token)!.bytes, utf8Length(json), path);
      }
    }
  });
});
