/**
 * The file store against what a shared directory can hold after crashes, clock steps and hostile
 * hands: an index ending in a torn line, an index that cannot be written, a lock left dated ahead or
 * planted as a dangling symlink, index lines that lie about their size.
 */
import assert from 'node:assert/strict';
import { appendFileSync, lutimesSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as realFs from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { FileProfileStore } from '../../src/debug/profiler/storage.ts';
import { fakeProfile, get, profiledApp, profileOf, removeTempDirs, tempDir, tick } from './support.ts';

after(removeTempDirs);

const hexToken = (i: number) => i.toString(16).padStart(6, '0');

describe('file store: a torn index', () => {
  test('regression: a torn last index line (an append cut by a crash or a full disk) swallowed the next profile\'s line', async () => {
    const dir = tempDir();
    const earlier = new FileProfileStore(dir, 100);
    await earlier.write(fakeProfile(hexToken(1)));
    // The process that appended the next line died half-way through it.
    appendFileSync(join(dir, 'index.ndjson'), '{"token":"000002","ip":"127.0.0.1","meth');
    const store = new FileProfileStore(dir, 100);
    await store.write(fakeProfile(hexToken(3)));
    await store.write(fakeProfile(hexToken(4)));
    assert.deepEqual((await store.find()).map((s) => s.token), [hexToken(4), hexToken(3), hexToken(1)]);
    assert.deepEqual((await new FileProfileStore(dir, 100).find()).map((s) => s.token), [hexToken(4), hexToken(3), hexToken(1)], 'another process lists it too');
  });

  test('regression: after a torn index line /_profiler/latest showed an older request than the last one', async () => {
    const dir = tempDir();
    await new FileProfileStore(dir, 100).write(fakeProfile(hexToken(1)));
    appendFileSync(join(dir, 'index.ndjson'), '{"token":"000002","ip":"127.');
    const app = profiledApp({ profilerDsn: `file:${dir}` });
    const response = await get(app, '/newest-request');
    await response.text();
    const token = (await profileOf(app, response)).token;
    // Its file is there before its index line: wait for the write to end.
    while (await app.services.profiler!.store.isPending(token)) await tick();
    const latest = await get(app, '/_profiler/latest', { headers: { accept: 'application/json' } });
    assert.equal(((await latest.json()) as { token: string }).token, token);
    await app.services.profiler!.store.close();
  });
});

/** The store's `node:fs/promises`, replaced (the store loads it on first use). */
function useFs(store: FileProfileStore, fs: Partial<typeof realFs>): void {
  (store as unknown as { fsModule: Promise<unknown> }).fsModule = Promise.resolve({ ...realFs, ...fs });
}

const profileFiles = (dir: string) => readdirSync(dir).filter((n) => /^[0-9a-f]{6}\.json$/.test(n));

describe('file store: an index that cannot be written', () => {
  test('regression: while the index could not be written every profile file stayed, outside max and max_bytes, never swept', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 5);
    // The index belongs to another user of a shared directory: opening it for writing fails.
    useFs(store, {
      open: (async (path: string, flags: number | string, mode?: number) => {
        if (String(path).endsWith('index.ndjson') && typeof flags === 'number' && (flags & realFs.constants.O_WRONLY) !== 0) {
          throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
        }
        return realFs.open(path, flags, mode);
      }) as typeof realFs.open,
    });
    const failures: string[] = [];
    for (let i = 1; i <= 20; i++) await store.write(fakeProfile(hexToken(i))).catch((e: Error) => failures.push(e.message));
    assert.equal(failures.length, 20, 'every write reports its failure');
    assert.deepEqual(profileFiles(dir), [], 'no profile file is left behind');
  });
});

describe('file store: a lock left behind', () => {
  test('regression: a lock left by a crashed process, dated ahead by a clock stepped back since, stopped every profile from being stored', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    const lock = join(dir, 'index.lock');
    writeFileSync(lock, '4242');
    // The process that held it ran while the clock was an hour ahead; NTP has set it back since.
    const ahead = new Date(Date.now() + 3_600_000);
    utimesSync(lock, ahead, ahead);
    const store = new FileProfileStore(dir, 10);
    const started = Date.now();
    await store.write(fakeProfile(hexToken(1)));
    assert.ok(Date.now() - started < 5000, `stored after ${Date.now() - started} ms`);
    assert.deepEqual((await store.find()).map((s) => s.token), [hexToken(1)]);
  });
});

describe('file store: an empty profile file dated ahead', () => {
  test('regression: an empty file under a token\'s name, dated ahead, was waited for on every view of that token and outlived every sweep', async () => {
    const dir = tempDir();
    const planted = join(dir, 'abcdef.json');
    writeFileSync(planted, '');
    const ahead = new Date(Date.now() + 3_600_000);
    utimesSync(planted, ahead, ahead);
    const store = new FileProfileStore(dir, 1);
    assert.equal(await store.isPending('abcdef'), false, 'no reservation: a view answers "not found" at once');
    // Past max=1 the index is rewritten, and the first rewrite sweeps the directory.
    await store.write(fakeProfile(hexToken(1)));
    await store.write(fakeProfile(hexToken(2)));
    assert.ok(!readdirSync(dir).includes('abcdef.json'), 'swept as an unfilled reservation');
  });
});

describe('file store: a planted lock', () => {
  test('regression: a dangling symlink named index.lock was never found stale: no profile was indexed again', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    symlinkSync(join(dir, 'nowhere'), join(dir, 'index.lock'));
    const old = new Date(Date.now() - 60_000);
    lutimesSync(join(dir, 'index.lock'), old, old);
    const store = new FileProfileStore(dir, 10);
    const started = Date.now();
    await store.write(fakeProfile(hexToken(1)));
    assert.ok(Date.now() - started < 5000, `stored after ${Date.now() - started} ms`);
    assert.deepEqual((await store.find()).map((s) => s.token), [hexToken(1)]);
  });
});

describe('file store: an index line that lies about its size', () => {
  const liar = (bytes: string) => `{"token":"0000ff","ip":"127.0.0.1","method":"GET","url":"http://127.0.0.1:8000/x","time":1,"status":200,"parent":null,"bytes":${bytes}}\n`;

  test('regression: one index line claiming 1e999 bytes made the next write evict every older profile', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 100);
    for (let i = 1; i <= 5; i++) await store.write(fakeProfile(hexToken(i)));
    appendFileSync(join(dir, 'index.ndjson'), liar('1e999'));
    await store.write(fakeProfile(hexToken(6)));
    assert.deepEqual((await store.find()).map((s) => s.token), [6, 5, 4, 3, 2, 1].map(hexToken));
    assert.ok(await store.read(hexToken(1)), 'the oldest profile is still there');
  });

  test('regression: one index line claiming a negative size switched the byte bound off', async () => {
    const dir = tempDir();
    const one = Buffer.byteLength(JSON.stringify(fakeProfile(hexToken(1))));
    const store = new FileProfileStore(dir, 100, one * 3);
    appendFileSync(join(dir, 'index.ndjson'), liar('-1e300'));
    for (let i = 1; i <= 10; i++) await store.write(fakeProfile(hexToken(i)));
    const files = profileFiles(dir).length;
    assert.ok(files <= 3, `${files} profiles of about ${one} bytes kept within ${one * 3} bytes`);
  });
});
