/**
 * File store robustness: the write queue is bounded and indexed in batches, a lock
 * that cannot be removed does not spin, planted symlinks are not written through, a directory that is
 * a file or vanishes or fills up fails soft, and failed writes leave nothing behind.
 */
import assert from 'node:assert/strict';
import * as realFs from 'node:fs/promises';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createProfileStore, FileProfileStore } from '../../src/debug/profiler/storage.ts';
import * as fileStore from '../../src/debug/profiler/storage/file-store.ts';
import { fakeProfile, tempDir, removeTempDirs } from './support.ts';
import { directoryLevels } from '../../src/debug/profiler/storage/make-directory.ts';

after(removeTempDirs);


/** The store's `node:fs/promises`, replaced (the store loads it on first use). */
function useFs(store: FileProfileStore, fs: Partial<typeof realFs>): void {
  (store as unknown as { fsModule: Promise<unknown> }).fsModule = Promise.resolve({ ...realFs, ...fs });
}

/** Read through the module object so that this file also loads against a store without the bound. */
const MAX_WAITING_WRITES = (fileStore as { MAX_WAITING_WRITES?: number }).MAX_WAITING_WRITES ?? 256;
const hexToken = (i: number) => i.toString(16).padStart(6, '0');
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('file store: the write queue', () => {
  test('regression: writes queued without bound while the disk lagged (1.2 GB after 10 s); past the bound a profile is dropped, logged once per burst', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 1000);
    const reports: string[] = [];
    store.report = (m) => reports.push(m);
    // A disk that lags: no profile file is renamed into place until released.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    useFs(store, { rename: async (from, to) => { await gate; return realFs.rename(from, to); } });

    const total = MAX_WAITING_WRITES + 100;
    const settled: ('ok' | 'rejected')[] = [];
    const errors: string[] = [];
    const writes = Array.from({ length: total }, (_, i) =>
      store.write(fakeProfile(hexToken(i + 1))).then(
        () => void settled.push('ok'),
        (e: Error) => {
          settled.push('rejected');
          errors.push(e.message);
        },
      ),
    );
    for (let i = 0; i < 20; i++) await tick();
    // The 100 past the bound are done at once (not held in memory); only the first of them says why.
    assert.equal(settled.length, total - MAX_WAITING_WRITES, 'writes past the bound do not wait');
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /write queue is full/);

    release();
    await Promise.all(writes);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.equal((await store.find({ limit: 2000 })).length, MAX_WAITING_WRITES);
    // The rest of the burst is reported once, when the queue has drained.
    assert.deepEqual(reports.filter((m) => /did not store/.test(m)), [`The profiler did not store ${total - MAX_WAITING_WRITES} profiles: the write queue for "${dir}" was full.`]);
    // A dropped profile's reservation is given back: no empty file left for it.
    await tick();
    const empty = readdirSync(dir).filter((n) => n.endsWith('.json') && readFileSync(join(dir, n), 'utf8') === '');
    assert.deepEqual(empty, []);
  });

  test('regression: every queued profile read the whole index under the lock; now a batch shares one read', async () => {
    const store = new FileProfileStore(tempDir(), 1000);
    let indexReads = 0;
    useFs(store, {
      readFile: ((path: string, options: unknown) => {
        if (String(path).endsWith('index.ndjson')) indexReads++;
        return realFs.readFile(path, options as never);
      }) as typeof realFs.readFile,
    });
    await Promise.all(Array.from({ length: 100 }, (_, i) => store.write(fakeProfile(hexToken(i + 1)))));
    const found = await store.find({ limit: 200 });
    assert.equal(found.length, 100);
    // Index order is still write order.
    assert.deepEqual(found.map((s) => s.token).reverse(), Array.from({ length: 100 }, (_, i) => hexToken(i + 1)));
    assert.ok(indexReads <= 10, `${indexReads} index reads for 100 profiles`);
  });

  test('a batch larger than max keeps only the newest max', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 5);
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.write(fakeProfile(hexToken(i + 1)))));
    assert.deepEqual((await store.find()).map((s) => s.token), [30, 29, 28, 27, 26].map(hexToken));
    assert.equal(readdirSync(dir).filter((n) => n.endsWith('.json')).length, 5);
  });
});

describe('file store: the index lock', () => {
  test('regression: a stale lock that could not be removed (a directory) made the lock loop spin at 100 % CPU', async () => {
    const dir = tempDir();
    const lock = join(dir, 'index.lock');
    mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const store = new FileProfileStore(dir, 10);
    let unlinks = 0;
    useFs(store, {
      unlink: (path) => {
        if (String(path) === lock) unlinks++;
        return realFs.unlink(path);
      },
    });
    const write = store.write(fakeProfile('00000a'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // With a sleep of 1–7 ms between attempts, well under a hundred in 300 ms; the spin made thousands.
    assert.ok(unlinks > 0 && unlinks < 150, `${unlinks} attempts to remove the lock in 300 ms`);
    rmSync(lock, { recursive: true });
    await write;
    assert.equal((await store.find()).length, 1);
  });
});

describe('file store: planted files', () => {
  test('regression: a symlink named index.ndjson made the store append profile summaries to its target', async () => {
    const dir = tempDir();
    const victim = join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'ORIGINAL\n');
    symlinkSync(victim, join(dir, 'index.ndjson'));
    const store = new FileProfileStore(dir, 5);
    for (let i = 1; i <= 3; i++) await store.write(fakeProfile(hexToken(i)));
    assert.equal(readFileSync(victim, 'utf8'), 'ORIGINAL\n');
    assert.ok(lstatSync(join(dir, 'index.ndjson')).isFile(), 'the link was replaced by a real index');
    assert.deepEqual((await store.find()).map((s) => s.token), [3, 2, 1].map(hexToken));
  });
});

describe('file store: the directory', () => {
  test('regression: a PROFILER_DSN path that is a regular file started, then every list page was a 500', async () => {
    const file = join(tempDir(), 'afile');
    writeFileSync(file, 'hi');
    assert.throws(() => createProfileStore(`file:${file}`), /PROFILER_DSN names ".*afile" as the profile directory, which cannot be used: it is not a directory/);
    assert.throws(() => createProfileStore(`file:${file}/sub`), /PROFILER_DSN .*not a directory/);
    const created = join(tempDir(), 'new', 'profiles');
    createProfileStore(`file:${created}`);
    assert.ok(existsSync(created), 'a missing directory is created at start');

    // A store that gets there anyway lists nothing (reported), and says what is wrong when storing.
    const store = new FileProfileStore(file, 10);
    const reports: string[] = [];
    store.report = (m) => reports.push(m);
    assert.deepEqual(await store.find(), []);
    assert.match(reports.join('\n'), /could not read the index of ".*afile": ENOTDIR/);
    const token = store.reserveToken();
    const error = await store.write(fakeProfile(token)).then(() => null, (e: Error) => e);
    assert.ok(error);
    assert.doesNotMatch(error.message, /reserved by another process/);
    assert.match(error.message, /exists but is not a directory/);
  });

  test('regression: PROFILER_DSN=file:/proc/… hung the start at full CPU (Node 20\'s recursive mkdir retries ENOENT forever)', async () => {
    // Under /proc a new entry is refused with ENOENT; each level is now made once and the first failure ends it.
    assert.throws(() => createProfileStore('file:/proc/irms-web-profiles/x'), /PROFILER_DSN names "\/proc\/irms-web-profiles\/x" as the profile directory, which cannot be used: ENOENT/);
    const store = new FileProfileStore('/proc/irms-web-profiles', 10);
    const error = await store.write(fakeProfile(store.reserveToken())).then(() => null, (e: Error) => e);
    assert.match(String(error?.message), /ENOENT/);
  });

  test('directoryLevels: each level of a path, once', () => {
    assert.deepEqual(directoryLevels('/a/b/c'), ['/a', '/a/b', '/a/b/c']);
    assert.deepEqual(directoryLevels('/a//b/'), ['/a', '/a//b']);
    assert.deepEqual(directoryLevels('rel/x'), ['rel', 'rel/x']);
    assert.deepEqual(directoryLevels('C:\\p\\q'), ['C:\\p', 'C:\\p\\q']);
  });

  test('regression: a profile directory deleted while running was never created again', async () => {
    const dir = join(tempDir(), 'profiles');
    const store = new FileProfileStore(dir, 10);
    await store.write(fakeProfile(store.reserveToken()));
    rmSync(dir, { recursive: true });
    let stored = 0;
    for (let i = 0; i < 12; i++) {
      let token: string;
      try {
        token = store.reserveToken();
      } catch {
        continue;
      }
      await store.write(fakeProfile(token)).then(() => stored++, () => {});
    }
    assert.ok(existsSync(dir), 'the directory is there again');
    assert.ok(stored >= 6, `${stored} of 12 stored after the directory came back`);
    // max=10: past it the index goes down to 9 (90 %).
    const found = (await store.find()).length;
    assert.ok(found <= 10 && found >= Math.min(stored, 9), `${found} indexed of ${stored} stored`);
    await store.close();
  });

  test('regression: a write failing for a full disk (ENOSPC) left its .tmp file and its empty reservation', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 10);
    useFs(store, {
      writeFile: (async (path: string, data: string, options: unknown) => {
        if (!String(path).includes('/.tmp-')) return realFs.writeFile(path, data, options as never);
        // Part of the file reaches the disk, then the disk is full.
        await realFs.writeFile(path, data.slice(0, 10), options as never);
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }) as typeof realFs.writeFile,
    });
    for (let i = 0; i < 3; i++) {
      const token = store.reserveToken();
      await assert.rejects(store.write(fakeProfile(token)), /ENOSPC/);
    }
    await store.close();
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-') || n.endsWith('.json')), []);
  });
});
