import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemorySessionStore } from '../../src/session/store.ts';
import { isWellFormedSessionId, newSessionId, StoredSession } from '../../src/session/session.ts';

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
