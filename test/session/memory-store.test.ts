import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionKey } from '../../src/security/member.ts';
import { MemorySessionStore, type SessionStore } from '../../src/session/store.ts';
import { isWellFormedSessionId, newSessionId, SECURITY_SESSION_KEY_PREFIX, StoredSession } from '../../src/session/session.ts';

test('the memory store is bounded by count: the least recently used session goes first', () => {
  const store = new MemorySessionStore({ maxCount: 3 });
  store.write('a', '1');
  store.write('b', '2');
  store.write('c', '3');
  assert.equal(store.read('a'), '1'); // a is now the most recently used
  store.write('d', '4');
  assert.equal(store.size, 3);
  assert.equal(store.read('b'), null, 'b was the least recently used');
  assert.equal(store.read('a'), '1');
  for (let i = 0; i < 1000; i++) store.write(`s${i}`, 'x');
  assert.equal(store.size, 3);
});

test('the memory store forgets sessions idle longer than the TTL; reads refresh it', () => {
  let now = 0;
  const store = new MemorySessionStore({ idleSeconds: 10, now: () => now });
  store.write('a', '1');
  store.write('b', '2');
  now = 9_000;
  assert.equal(store.read('a'), '1');
  now = 15_000;
  assert.equal(store.read('b'), null, 'b idled 15 s');
  assert.equal(store.read('a'), '1', 'a was read at 9 s');
  now = 100_000;
  store.write('c', '3');
  assert.equal(store.size, 1, 'expired entries are swept on write');
  store.destroy('c');
  assert.equal(store.read('c'), null);
});

test('an oversized session is refused', () => {
  const store = new MemorySessionStore({ maxEntryLength: 10 });
  assert.throws(() => store.write('a', 'x'.repeat(11)), /exceeds/);
});

test('session ids are 256-bit CSPRNG values, unique, and client ids are checked for shape', () => {
  const ids = new Set<string>();
  for (let i = 0; i < 1000; i++) ids.add(newSessionId());
  assert.equal(ids.size, 1000);
  for (const id of ids) {
    assert.match(id, /^[A-Za-z0-9_-]{43}$/); // 43 base64url characters = 256 bits
    assert.ok(isWellFormedSessionId(id));
  }
  assert.ok(!isWellFormedSessionId('short'));
  assert.ok(!isWellFormedSessionId('a'.repeat(30) + ';x'));
});

test('a session never adopts an id the store does not know', () => {
  const store = new MemorySessionStore();
  const chosen = 'attacker-chosen-id-0123456789';
  const session = new StoredSession(store, chosen);
  session.set('k', 'v');
  assert.equal(session.save(), 'stored');
  assert.notEqual(session.id, chosen);
  assert.equal(store.read(chosen), null);
  assert.equal(JSON.parse(store.read(session.id)!).k, 'v');
});

test('a known id is adopted; migrate() rotates it and destroys the old one; invalidate() empties it', () => {
  const store = new MemorySessionStore();
  const first = new StoredSession(store, null);
  first.set('user', 'ada');
  first.save();
  const id = first.id;
  const again = new StoredSession(store, id);
  assert.equal(again.get('user'), 'ada');
  assert.equal(again.id, id);
  again.migrate();
  assert.notEqual(again.id, id);
  again.save();
  assert.equal(store.read(id), null, 'old id destroyed');
  assert.equal(JSON.parse(store.read(again.id)!).user, 'ada');
  const third = new StoredSession(store, again.id);
  third.invalidate();
  assert.equal(third.isEmpty, true);
  assert.equal(third.save(), 'emptied');
  assert.equal(store.read(again.id), null);
});

test('an unused session stores nothing; __proto__ is a plain key; writes after close throw', () => {
  const store = new MemorySessionStore();
  const unused = new StoredSession(store, null);
  assert.equal(unused.save(), 'untouched');
  assert.equal(store.size, 0);
  const s = new StoredSession(store, null);
  s.set('__proto__', { admin: true });
  s.save();
  const back = new StoredSession(store, s.id);
  assert.deepEqual(back.get('__proto__'), { admin: true });
  assert.equal(({} as Record<string, unknown>).admin, undefined);
  back.close();
  assert.throws(() => back.set('x', 1), /already saved/);
});

test('an asynchronous store is awaited through start()', async () => {
  const inner = new MemorySessionStore();
  inner.write('known-session-id-0123456789', JSON.stringify({ a: 1 }));
  const store = {
    read: async (id: string) => inner.read(id),
    write: async (id: string, data: string) => inner.write(id, data),
    destroy: async (id: string) => inner.destroy(id),
  };
  const s = new StoredSession(store, 'known-session-id-0123456789');
  assert.throws(() => s.get('a'), /asynchronously/);
  await s.start();
  assert.equal(s.get('a'), 1);
  s.set('b', 2);
  assert.equal(await s.save(), 'stored');
  assert.deepEqual(JSON.parse(inner.read('known-session-id-0123456789')!), { a: 1, b: 2 });
});

test('regression: anonymous sessions are evicted before members (F1: a flood of anonymous sessions logged every member out)', () => {
  const store = new MemorySessionStore({ maxCount: 3 });
  store.write('m1', 'member 1', { member: true, created: true });
  for (let i = 0; i < 100; i++) {
    store.write(`g${i}`, 'guest');
    assert.ok(store.size <= 3);
  }
  assert.equal(store.size, 3);
  assert.equal(store.read('m1'), 'member 1', 'the member outlived 100 anonymous sessions');
  assert.equal(store.read('g99'), 'guest', 'the newest anonymous sessions are kept');
  assert.equal(store.read('g97'), null, 'the least recently used anonymous session went first');

  // Members push out the remaining anonymous sessions before one another.
  store.write('m2', 'member 2', { member: true, created: true });
  store.write('m3', 'member 3', { member: true, created: true });
  assert.equal(store.read('g99'), null);
  assert.equal(store.read('m2'), 'member 2');
  assert.equal(store.read('m1'), 'member 1');
  assert.equal(store.read('m3'), 'member 3');
  // Only members left (last use: m2, m1, m3): the least recently used member goes.
  store.write('m4', 'member 4', { member: true, created: true });
  assert.equal(store.size, 3);
  assert.equal(store.read('m2'), null);
  assert.deepEqual([store.read('m1'), store.read('m3'), store.read('m4')], ['member 1', 'member 3', 'member 4']);
  // A session that logs its member out becomes evictable first again.
  store.write('m1', 'anonymous now');
  store.write('g', 'guest');
  assert.equal(store.read('m1'), null);
  assert.equal(store.read('m3'), 'member 3');
});

test('a new anonymous session is kept even when members fill the store: the least recently used member makes room', () => {
  const store = new MemorySessionStore({ maxCount: 2 });
  store.write('m1', '1', { member: true, created: true });
  store.write('m2', '2', { member: true, created: true });
  store.write('g1', 'guest');
  assert.equal(store.read('g1'), 'guest', 'the write that just happened is not lost');
  assert.equal(store.read('m1'), null);
  assert.equal(store.read('m2'), '2');
  store.write('g2', 'guest');
  assert.equal(store.read('g1'), null, 'from then on anonymous sessions evict one another');
  assert.equal(store.read('m2'), '2');
});

test('expired sessions go before anything else, members included', () => {
  let now = 0;
  const store = new MemorySessionStore({ maxCount: 3, idleSeconds: 10, now: () => now });
  store.write('m', 'member', { member: true, created: true });
  now = 5_000;
  store.write('g1', '1');
  store.write('g2', '2');
  now = 10_000;
  store.write('g3', '3');
  assert.equal(store.size, 3);
  assert.deepEqual([store.read('g1'), store.read('g2'), store.read('g3'), store.read('m')], ['1', '2', '3', null]);
});

test('regression: a write to a destroyed id is dropped; destroyed ids are remembered for idleSeconds, at most maxCount of them (F2: logout undone by a request in flight)', () => {
  let now = 0;
  const store = new MemorySessionStore({ maxCount: 3, idleSeconds: 10, now: () => now });
  store.write('a', 'member', { member: true, created: true });
  store.destroy('a');
  store.write('a', 'member', { member: true, created: true });
  assert.equal(store.read('a'), null, 'the late write did not re-create the destroyed id');
  assert.equal(store.size, 0);

  // Bounded: destroying maxCount more ids forgets the oldest destroyed id.
  for (const id of ['b', 'c']) store.destroy(id);
  store.write('a', 'x');
  assert.equal(store.read('a'), null, 'still remembered: 3 destroyed ids');
  store.destroy('d');
  store.write('a', 'x');
  assert.equal(store.read('a'), 'x', 'forgotten once maxCount later ids were destroyed');
  for (let i = 0; i < 10_000; i++) store.destroy(`t${i}`);
  store.write('t9996', 'x');
  assert.equal(store.read('t9996'), 'x', 'only the last maxCount destroyed ids are remembered');
  store.write('t9997', 'x');
  assert.equal(store.read('t9997'), null);

  // Time-bounded: remembered for idleSeconds.
  store.destroy('e');
  now = 9_999;
  store.write('e', 'x');
  assert.equal(store.read('e'), null);
  now = 10_000;
  store.write('e', 'x');
  assert.equal(store.read('e'), 'x');
});

/** A store that records what the session asks of it. */
function recordingStore(withTouch: boolean) {
  const inner = new MemorySessionStore();
  const calls: string[] = [];
  const store: SessionStore = {
    read: (id) => inner.read(id),
    write: (id, data, info) => {
      calls.push(`write ${id === 'id-0123456789012345678901' ? 'same' : 'new'} member=${info?.member}`);
      inner.write(id, data, info);
    },
    destroy: (id) => {
      calls.push('destroy');
      inner.destroy(id);
    },
  };
  if (withTouch) store.touch = () => void calls.push('touch');
  inner.write('id-0123456789012345678901', JSON.stringify({ _security_main: { memberId: '1' }, n: 1 }));
  return { store, calls };
}

test('regression: a session that was only read is not written back, so a request in flight cannot revive a destroyed id', () => {
  for (const withTouch of [false, true]) {
    const { store, calls } = recordingStore(withTouch);
    const reader = new StoredSession(store, 'id-0123456789012345678901');
    assert.deepEqual({ ...reader.all() }, { _security_main: { memberId: '1' }, n: 1 });
    reader.set('n', 1); // the same value: nothing changed
    assert.equal(reader.save(), 'stored', 'the outcome (hence cookie and caching) is unchanged');
    assert.deepEqual(calls, withTouch ? ['touch'] : [], 'no write; touch() only when the store has it');

    const writer = new StoredSession(store, 'id-0123456789012345678901');
    writer.set('n', 2);
    assert.equal(writer.save(), 'stored');
    assert.equal(calls.at(-1), 'write same member=true', 'changed data is written, telling the store it holds a member');
  }
});

test('the store is told whether a session holds a member; ids generated during the request are never destroyed', () => {
  const { store, calls } = recordingStore(false);
  const s = new StoredSession(store, null);
  s.set('cart', 1);
  s.save();
  assert.deepEqual(calls, ['write new member=false']);
  calls.length = 0;
  const loggedOut = new StoredSession(store, 'id-0123456789012345678901');
  loggedOut.invalidate();
  loggedOut.migrate();
  assert.equal(loggedOut.save(), 'emptied');
  assert.deepEqual(calls, ['destroy'], 'only the stored id is destroyed, not the fresh ones');
  assert.equal(SECURITY_SESSION_KEY_PREFIX, sessionKey('main').slice(0, -'main'.length), 'the prefix the session layer knows is the one the firewall uses');
});

test('regression: the memory store was bounded only by count × entry size (over a gigabyte at the defaults); its data is now bounded in total, guests evicted first', () => {
  assert.equal(new MemorySessionStore().maxBytes, 64 * 1024 * 1024, 'default 64 MiB');
  const store = new MemorySessionStore({ maxBytes: 1000 }); // 500 UTF-16 code units
  store.write('m', 'm'.repeat(100), { member: true, created: true });
  for (let i = 0; i < 50; i++) {
    store.write(`g${i}`, 'g'.repeat(100));
    assert.ok(store.storedBytes <= 1000, `within the bound (${store.storedBytes})`);
  }
  assert.equal(store.read('m'), 'm'.repeat(100), 'the member outlived 50 large anonymous sessions');
  assert.equal(store.read('g49'), 'g'.repeat(100), 'the newest guest is kept');
  assert.equal(store.read('g45'), null, 'older guests went first');
  assert.equal(store.size, 5);
  // A write replacing a session counts its new size only; members go only when nothing else is left.
  store.write('g49', 'g'.repeat(10));
  store.write('m2', 'm'.repeat(395), { member: true, created: true });
  assert.deepEqual([store.read('m'), store.read('m2'), store.read('g49')], ['m'.repeat(100), 'm'.repeat(395), null]);
  assert.equal(store.storedBytes, 990);
  assert.throws(() => store.write('big', 'x'.repeat(501)), /exceeds/, 'one session larger than the whole bound is refused');
  store.destroy('m');
  assert.equal(store.storedBytes, 790);
});

test('regression: a write that is not a creation re-created an id the store no longer held (destroyed and forgotten, expired, evicted)', () => {
  let now = 0;
  const store = new MemorySessionStore({ maxCount: 2, idleSeconds: 10, now: () => now });
  const late = { member: true, created: false };
  store.write('a', 'member', { member: true, created: true });
  store.destroy('a');
  for (const id of ['b', 'c', 'd']) store.destroy(id); // 'a' leaves the list of destroyed ids
  store.write('a', 'member', late);
  assert.equal(store.read('a'), null, 'destroyed, forgotten, still not re-created');

  store.write('e', 'member', { member: true, created: true });
  now = 10_000;
  store.write('e', 'member', late);
  assert.equal(store.read('e'), null, 'expired');

  now = 20_000;
  for (const id of ['f', 'g', 'h']) store.write(id, id, { member: true, created: true });
  assert.equal(store.read('f'), null, 'evicted');
  store.write('f', 'f', late);
  assert.equal(store.read('f'), null, 'not re-created');
  store.write('h', 'h2', late);
  assert.equal(store.read('h'), 'h2', 'an id the store holds is written');
  store.update('f', () => ({ data: 'f', info: late }));
  assert.equal(store.read('f'), null, 'update never creates');
});

test('regression: with a store that has update, a session applies only its own changes onto what other requests saved meanwhile', () => {
  const store = new MemorySessionStore();
  const seed = new StoredSession(store, null);
  seed.set('cart', { items: ['a'] });
  seed.set('old', 1);
  seed.save();
  const id = seed.id;
  const [one, two, three] = [0, 1, 2].map(() => new StoredSession(store, id));
  for (const s of [one, two, three]) s.get('cart');
  one.set('x', 1);
  (two.get('cart') as { items: string[] }).items.push('b'); // changed in place, never set again
  three.remove('old');
  for (const s of [one, two, three]) assert.equal(s.save(), 'stored');
  assert.deepEqual(JSON.parse(store.read(id)!), { cart: { items: ['a', 'b'] }, x: 1 });
  assert.deepEqual({ ...three.peek() }, { cart: { items: ['a', 'b'] }, x: 1 }, 'the session holds what it saved');

  // A rotation keeps replace semantics: the new id holds this request's view only.
  const rotating = new StoredSession(store, id);
  const other = new StoredSession(store, id);
  rotating.get('x');
  other.set('y', 1);
  other.save();
  rotating.migrate();
  rotating.save();
  assert.equal(store.read(id), null);
  assert.deepEqual(JSON.parse(store.read(rotating.id)!), { cart: { items: ['a', 'b'] }, x: 1 });

  // Emptied by one request while another added a key: the added key is kept under the same id.
  const clearing = new StoredSession(store, rotating.id);
  const adding = new StoredSession(store, rotating.id);
  clearing.clear();
  adding.set('z', 1);
  adding.save();
  assert.equal(clearing.save(), 'stored');
  assert.deepEqual(JSON.parse(store.read(rotating.id)!), { z: 1 });
});

test('regression: one member\'s sessions are bounded (maxSessionsPerMember), so a login flood from one account cannot evict the other members', () => {
  const store = new MemorySessionStore({ maxCount: 10, maxSessionsPerMember: 3 });
  store.write('victim', 'v', { member: true, created: true, owner: 'v' });
  for (let i = 0; i < 100; i++) store.write(`a${i}`, 'a', { member: true, created: true, owner: 'attacker' });
  assert.equal(store.read('victim'), 'v', 'the other member outlived 100 logins of one account');
  assert.equal(store.size, 4);
  assert.deepEqual([store.read('a97'), store.read('a98'), store.read('a99')], ['a', 'a', 'a'], 'the account keeps its newest sessions');
  assert.equal(store.read('a96'), null);
  // The member's least recently used session goes, not the oldest written: a97 was just read.
  store.read('a97');
  store.write('a100', 'a', { member: true, created: true, owner: 'attacker' });
  assert.deepEqual([store.read('a97'), store.read('a98'), store.read('a100')], ['a', null, 'a']);
  // A session whose member logs out no longer counts toward the bound.
  store.write('a97', 'anonymous now');
  store.write('a101', 'a', { member: true, created: true, owner: 'attacker' });
  assert.deepEqual([store.read('a99'), store.read('a100'), store.read('a101'), store.read('a97')], ['a', 'a', 'a', 'anonymous now']);
});

test('the session tells the store which member it holds', () => {
  const { store, calls } = recordingStore(false);
  const infos: unknown[] = [];
  const write = store.write;
  store.write = (id, data, info) => { infos.push(info); return write(id, data, info); };
  const s = new StoredSession(store, null);
  s.set(sessionKey('main'), { memberId: '42', irmsToken: 't', roles: [] });
  s.save();
  assert.deepEqual(infos, [{ member: true, owner: '42', created: true, replaces: undefined }]);
  assert.equal(calls.length, 1);
});
