/**
 * The file store under load: no token for a profile that will be dropped, a dropped reservation keeps
 * its token taken for other processes, the index is read incrementally and rewritten in steps, and
 * evicted files are removed a few at a time.
 */
import assert from 'node:assert/strict';
import * as realFs from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { FileProfileStore } from '../../src/debug/profiler/storage.ts';
import { MAX_WAITING_WRITES } from '../../src/debug/profiler/storage/file-store.ts';
import { fakeProfile, get, profiledApp, removeTempDirs, tempDir } from './support.ts';

after(removeTempDirs);

/** The store's `node:fs/promises`, replaced (the store loads it on first use). */
function useFs(store: FileProfileStore, fs: Partial<typeof realFs>): void {
  (store as unknown as { fsModule: Promise<unknown> }).fsModule = Promise.resolve({ ...realFs, ...fs });
}

/** Renames held until `release` (a disk that lags): profile files never land, the write queue fills. */
function laggingRenames(store: FileProfileStore): () => void {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  useFs(store, { rename: async (from, to) => { await gate; return realFs.rename(from, to); } });
  return release;
}

const hexToken = (i: number) => i.toString(16).padStart(6, '0');
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const indexTokens = (dir: string) => readFileSync(join(dir, 'index.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).token as string);

describe('file store: a full write queue', () => {
  test('regression: while the write queue was full responses still got a token, whose profile was then dropped (a dead X-Debug-Token-Link)', async () => {
    const dir = tempDir();
    const app = profiledApp({ profilerDsn: `file:${dir}?max=1000` });
    const store = app.services.profiler!.store as FileProfileStore;
    const release = laggingRenames(store);

    const tokens: string[] = [];
    let unprofiled = 0;
    for (let i = 0; i < MAX_WAITING_WRITES + 60; i++) {
      const r = await get(app, `/load-${i}`);
      await r.text();
      const token = r.headers.get('x-debug-token');
      if (token === null) unprofiled++;
      else tokens.push(token);
      await turn();
    }
    assert.ok(unprofiled > 0, 'once the queue is full, responses go out unprofiled');
    assert.ok(app.logs.some((l) => /profiler\.ERROR: The profiler could not reserve a token: The profile write queue is full/.test(l)));

    release();
    for (const t of tokens) for (let waited = 0; (await store.isPending(t)) && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    const missing: string[] = [];
    for (const t of tokens) if ((await store.read(t)) === null) missing.push(t);
    assert.deepEqual(missing, [], 'every token handed out has its profile');
    await store.close();
  });

  test('regression: a dropped profile\'s reservation was unlinked at once, so another process could hand out the same token again', async (t) => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 1000);
    store.report = () => {};
    const token = store.reserveToken();
    // Its reservation file is there before the queue fills up.
    for (let waited = 0; !existsSync(join(dir, `${token}.json`)) && waited < 200; waited++) await turn();
    const release = laggingRenames(store);
    const queued = Array.from({ length: MAX_WAITING_WRITES }, (_, i) => store.write(fakeProfile(hexToken(i + 1))).catch(() => {}));
    // A token handed out is counted against the queue's bound, unless its write comes after the
    // reservation TTL: only then is its profile dropped.
    const realNow = Date.now.bind(Date);
    const clock = t.mock.method(Date, 'now', () => realNow() + 61_000);
    await assert.rejects(store.write(fakeProfile(token)), /write queue is full/);
    clock.mock.restore();
    release();
    await Promise.all(queued);
    await store.close();

    // Once everything has settled, another process on the directory still sees the token as taken.
    const other = new FileProfileStore(dir, 1000);
    assert.equal(await other.isPending(token), true);
    assert.equal(statSync(join(dir, `${token}.json`)).size, 0);
    await other.close();
  });
});

describe('file store: the index', () => {
  test('regression: once at `max`, every batch rewrote the whole index; now it goes down to 90 % and appends until full again', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 50);
    let rewrites = 0;
    useFs(store, {
      rename: (from, to) => {
        if (String(to).endsWith('index.ndjson')) rewrites++;
        return realFs.rename(from, to);
      },
    });
    // One batch per profile: the case where each batch rewrote the index.
    for (let i = 1; i <= 200; i++) await store.write(fakeProfile(hexToken(i)));
    // 150 profiles past the bound, 5 per rewrite (50 → 45): about 30 rewrites, not 150.
    assert.ok(rewrites <= 35, `${rewrites} index rewrites for 150 profiles past max=50`);
    const index = indexTokens(dir);
    assert.ok(index.length >= 45 && index.length <= 50, `${index.length} indexed`);
    assert.deepEqual(index, Array.from({ length: index.length }, (_, i) => hexToken(200 - index.length + 1 + i)), 'the newest, in order');
    const files = readdirSync(dir).filter((n) => /^[0-9a-f]{6}\.json$/.test(n)).map((n) => n.slice(0, 6));
    assert.deepEqual(files.sort(), [...index].sort(), 'exactly the indexed profiles are on disk');
  });

  test('regression: every batch read and parsed the whole index; now only the bytes appended since the last read', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 1000);
    let bytesRead = 0;
    const isIndex = (path: unknown) => String(path).endsWith('index.ndjson');
    useFs(store, {
      readFile: (async (path: string, options: unknown) => {
        const text = await realFs.readFile(path, options as never);
        if (isIndex(path)) bytesRead += text.length;
        return text;
      }) as typeof realFs.readFile,
      open: (async (path: string, ...rest: unknown[]) => {
        const handle = await (realFs.open as (...a: unknown[]) => Promise<realFs.FileHandle>)(path, ...rest);
        if (!isIndex(path)) return handle;
        return new Proxy(handle, {
          get(target, key) {
            if (key === 'read') {
              return async (...args: unknown[]) => {
                const result = await (target.read as (...a: unknown[]) => Promise<{ bytesRead: number }>)(...args);
                bytesRead += result.bytesRead;
                return result;
              };
            }
            const value = Reflect.get(target, key, target) as unknown;
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      }) as typeof realFs.open,
    });
    for (let i = 1; i <= 100; i++) await store.write(fakeProfile(hexToken(i)));
    const size = statSync(join(dir, 'index.ndjson')).size;
    // Re-reading it whole per batch reads about 50 times its final size.
    assert.ok(bytesRead < 3 * size, `${bytesRead} bytes of index read to write an index of ${size} bytes`);
    assert.deepEqual(indexTokens(dir), Array.from({ length: 100 }, (_, i) => hexToken(i + 1)));
  });

  test('two stores on one directory (two processes) each see the other\'s appends and rewrites', async () => {
    const dir = tempDir();
    const a = new FileProfileStore(dir, 10);
    const b = new FileProfileStore(dir, 10);
    for (let i = 1; i <= 40; i++) {
      await (i % 3 === 0 ? b : a).write(fakeProfile(hexToken(i)));
      const expected = indexTokens(dir).reverse();
      assert.deepEqual((await a.find({ limit: 100 })).map((s) => s.token), expected, `store a after profile ${i}`);
      assert.deepEqual((await b.find({ limit: 100 })).map((s) => s.token), expected, `store b after profile ${i}`);
    }
    const index = indexTokens(dir);
    assert.ok(index.length >= 9 && index.length <= 10);
    assert.equal(new Set(index).size, index.length, 'no token indexed twice');
    // A purge by one empties the other's view too.
    await b.purge();
    assert.deepEqual(await a.find(), []);
    await a.write(fakeProfile('0000ff'));
    assert.deepEqual((await b.find()).map((s) => s.token), ['0000ff']);
  });

  test('regression: evicted profile files were unlinked one at a time; now a few at once', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 100);
    let inFlight = 0;
    let most = 0;
    useFs(store, {
      unlink: async (path) => {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          return await realFs.unlink(path);
        } finally {
          inFlight--;
        }
      },
    });
    for (let i = 1; i <= 101; i++) await store.write(fakeProfile(hexToken(i)));
    // 101 > 100: down to 90, eleven files removed.
    assert.equal(indexTokens(dir).length, 90);
    assert.equal(readdirSync(dir).filter((n) => /^[0-9a-f]{6}\.json$/.test(n)).length, 90);
    assert.ok(most > 1 && most <= 8, `${most} unlinks at once`);
  });
});
