/**
 * Profile storage (CONTRACT §6.3): PROFILER_DSN parsing, the `max` and byte bounds of both stores,
 * eviction ("not found" afterwards), and tokens that can never name another file.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { FileProfileStore, MAX_RESERVATIONS, MemoryProfileStore, parseProfilerDsn } from '../../src/debug/profiler/storage.ts';
import type { Profile } from '../../src/debug/profiler/profile.ts';
import { fakeProfile, fixtureRoutes, get, ORIGIN, profiledApp, tempDir, removeTempDirs, tick } from './support.ts';

after(removeTempDirs);


async function fill(store: MemoryProfileStore | FileProfileStore, n: number, extra: Partial<Profile> = {}): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const token = await store.reserveToken();
    await store.write(fakeProfile(token, extra));
    tokens.push(token);
  }
  return tokens;
}

describe('PROFILER_DSN', () => {
  test('memory and file forms', () => {
    assert.deepEqual(parseProfilerDsn('memory://?max=1000'), { kind: 'memory', dir: '', max: 1000, maxBytes: 64 * 1024 * 1024 });
    assert.deepEqual(parseProfilerDsn('memory://'), { kind: 'memory', dir: '', max: 1000, maxBytes: 64 * 1024 * 1024 });
    assert.equal(parseProfilerDsn('memory://?max=5&max_bytes=2mb').maxBytes, 2 * 1024 * 1024);
    assert.deepEqual(parseProfilerDsn('file:/var/tmp/profiles?max=20'), { kind: 'file', dir: '/var/tmp/profiles', max: 20, maxBytes: 256 * 1024 * 1024 });
    assert.equal(parseProfilerDsn('file:./var/profiler').dir, './var/profiler');
    assert.equal(parseProfilerDsn('file:///tmp/a%20b/?max=3').dir, '/tmp/a b');
  });

  test('invalid DSNs stop the start with a message naming PROFILER_DSN', () => {
    for (const dsn of ['redis://localhost', 'memory://?max=0', 'memory://?max=abc', 'memory://?maxx=3', 'file:', 'file://evil.example/x', 'memory://?max_bytes=10']) {
      assert.throws(() => parseProfilerDsn(dsn), /PROFILER_DSN/, dsn);
    }
    // Given as a createApp option, the message names the option (the variable's is PROFILER_DSN's).
    assert.throws(() => profiledApp({ profilerDsn: 'bogus:' }), /^Error: createApp option "profilerDsn" must be "memory:\/\/\?max=N" or /);
    assert.throws(() => profiledApp({ environment: { PROFILER_DSN: 'bogus:' } }), /^Error: PROFILER_DSN must be /);
  });
});

describe('memory store', () => {
  test('keeps the newest `max` profiles; evicted tokens read as not found', async () => {
    const store = new MemoryProfileStore(5);
    const tokens = await fill(store, 12);
    assert.equal(store.size, 5);
    for (const t of tokens.slice(0, 7)) assert.equal(await store.read(t), null);
    for (const t of tokens.slice(7)) assert.equal((await store.read(t))?.token, t);
    assert.deepEqual((await store.find({ limit: 100 })).map((s) => s.token), tokens.slice(7).reverse());
  });

  test('is bounded in bytes too', async () => {
    const store = new MemoryProfileStore(1000, 20_000);
    await fill(store, 50, { url: `${ORIGIN}/${'p'.repeat(1500)}` });
    assert.ok(store.byteSize <= 20_000, `${store.byteSize} bytes`);
    assert.ok(store.size < 50 && store.size > 0);
  });

  test('an app with max=3 answers "Token not found" for an evicted token, 404 on /_wdt', async () => {
    const app = profiledApp({ profilerDsn: 'memory://?max=3' });
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) tokens.push((await get(app, `/gone-${i}`)).headers.get('x-debug-token')!);
    await tick(20);
    const evicted = await get(app, `/_profiler/${tokens[0]}`);
    assert.equal(evicted.status, 200);
    const body = await evicted.text();
    assert.ok(body.includes('Token not found'));
    assert.ok(body.includes(`Token "${tokens[0]}" not found.`));
    const wdt = await get(app, `/_wdt/${tokens[0]}`);
    assert.equal(wdt.status, 404);
    assert.equal(await wdt.text(), '');
    assert.equal((await get(app, `/_wdt/${tokens[4]}`)).status, 200);
    assert.equal((await app.services.profiler!.find({ limit: 10 })).length, 3);
  });

  test('tokens never repeat within the recent window, even after eviction', async () => {
    const store = new MemoryProfileStore(1);
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const t = store.reserveToken();
      assert.ok(!seen.has(t));
      seen.add(t);
      await store.write(fakeProfile(t));
    }
  });
});

describe('reservations whose profile never comes', () => {
  test('regression: each reservation scanned every pending one; now they expire, are swept oldest first and stay bounded', async (t) => {
    let clock = 1_000_000;
    t.mock.method(Date, 'now', () => clock);
    const store = new MemoryProfileStore(10);
    const early = Array.from({ length: 300 }, () => store.reserveToken());
    assert.equal(await store.isPending(early[0]!), true);
    clock += 61_000;
    assert.equal(await store.isPending(early[0]!), false, 'expired');
    const late = Array.from({ length: 300 }, () => store.reserveToken());
    assert.ok(store.pendingCount <= 300, `the expired reservations were swept (${store.pendingCount} pending)`);
    for (const token of late) assert.equal(await store.isPending(token), true);
    // A host that never runs kernel.terminate: within the TTL the count still stops at the bound.
    for (let i = 0; i < 3 * MAX_RESERVATIONS; i++) {
      store.reserveToken();
      if (store.pendingCount > MAX_RESERVATIONS) assert.fail(`${store.pendingCount} pending reservations`);
    }
    assert.equal(await store.isPending(late[0]!), false, 'the oldest went first');
    const token = store.reserveToken();
    assert.equal(await store.isPending(token), true, 'the newest is kept');
    await store.write(fakeProfile(token));
    assert.equal(await store.isPending(token), false);
    assert.equal((await store.read(token))?.token, token);
  });
});

describe('file store', () => {
  test('one file per profile plus an index; keeps the newest `max` by deleting the oldest', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 4);
    const tokens = await fill(store, 10);
    await store.close(); // gives back the tokens reserved ahead
    const files = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
    assert.deepEqual(files, tokens.slice(6).map((t) => `${t}.json`).sort());
    const index = readFileSync(join(dir, 'index.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).token);
    assert.deepEqual(index, tokens.slice(6));
    for (const t of tokens.slice(0, 6)) assert.equal(await store.read(t), null);
    assert.equal((await store.read(tokens[9]!))?.token, tokens[9]);
    assert.deepEqual((await store.find()).map((s) => s.token), tokens.slice(6).reverse());
    assert.ok(!readdirSync(dir).includes('index.lock'), 'lock released');
  });

  test('bounded in bytes too', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 1000, 20_000);
    await fill(store, 40, { url: `${ORIGIN}/${'p'.repeat(1500)}` });
    await store.close();
    const index = readFileSync(join(dir, 'index.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const total = index.reduce((s: number, e: { bytes: number }) => s + e.bytes, 0);
    assert.ok(total <= 20_000 && index.length < 40);
    assert.equal(readdirSync(dir).filter((n) => n.endsWith('.json')).length, index.length);
  });

  test('a reserved token reads as pending, not as a profile, until written', async () => {
    const store = new FileProfileStore(tempDir(), 10);
    const token = await store.reserveToken();
    assert.equal(await store.read(token), null);
    assert.equal(await store.isPending(token), true);
    await store.write(fakeProfile(token));
    assert.equal(await store.isPending(token), false);
    assert.equal((await store.read(token))?.token, token);
  });

  test('tokens are validated before the filesystem is touched: no traversal', async () => {
    const dir = tempDir();
    const secret = join(dir, '..', `secret-${process.pid}.json`);
    writeFileSync(secret, JSON.stringify({ token: 'stolen' }));
    try {
      const store = new FileProfileStore(join(dir, 'profiles'), 10);
      for (const t of ['../secret', `../secret-${process.pid}`, '..%2fsecret', 'ABCDEF', 'abcdefa', 'abc', '', '/etc/passwd', 'abcde\0']) {
        assert.equal(await store.read(t), null, t);
        assert.equal(await store.isPending(t), false, t);
      }
      await assert.rejects(store.write(fakeProfile('../../x')), /Invalid profiler token/);
    } finally {
      rmSync(secret, { force: true });
    }
  });

  test('regression: a file store evicted the newest profile when its file was written before older ones', async () => {
    const store = new FileProfileStore(tempDir(), 2);
    const tokens = [await store.reserveToken(), await store.reserveToken(), await store.reserveToken(), await store.reserveToken()];
    // Older profiles' files finish last (the newest first), as they may on a loaded machine.
    const fs = await (store as unknown as { fs(): Promise<typeof import('node:fs/promises')> }).fs();
    const slowed = {
      ...fs,
      writeFile: async (path: string, data: string) => {
        const index = tokens.findIndex((t) => path.includes(`.tmp-${t}-`));
        if (index >= 0) await tick(20 * (tokens.length - index));
        return fs.writeFile(path, data);
      },
    };
    (store as unknown as { fsModule: Promise<unknown> }).fsModule = Promise.resolve(slowed);
    await Promise.all(tokens.map((token) => store.write(fakeProfile(token))));
    assert.equal((await store.read(tokens[3]))?.token, tokens[3], 'the newest request is kept');
    assert.equal((await store.read(tokens[2]))?.token, tokens[2]);
    assert.equal(await store.read(tokens[0]), null, 'the oldest request is evicted');
    assert.equal(await store.read(tokens[1]), null);
  });

  test('an app on a file store serves its pages and answers not found for evicted tokens', async () => {
    const dir = tempDir();
    const app = profiledApp({ profilerDsn: `file:${dir}?max=2` });
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push((await get(app, `/file-${i}`)).headers.get('x-debug-token')!);
    // Every write done (files and index), however slow the machine: no fixed delay to outrun.
    const store = app.services.profiler!.store;
    for (const token of tokens) for (let waited = 0; (await store.isPending(token)) && waited < 10_000; waited += 10) await tick(10);
    const r = await get(app, `/_profiler/${tokens[3]}`, { headers: { accept: 'application/json' } });
    assert.equal(r.status, 200);
    assert.equal((await r.json()).url, `${ORIGIN}/file-3`);
    assert.ok((await (await get(app, `/_profiler/${tokens[0]}`)).text()).includes(`Token "${tokens[0]}" not found.`));
    assert.equal((await get(app, `/_wdt/${tokens[0]}`)).status, 404);
    await app.services.profiler!.store.close();
    assert.equal(readdirSync(dir).filter((n) => n.endsWith('.json')).length, 2);
  });
});

describe('file store: files another version of the app or a hand edit left in the directory', () => {
  async function written(app: ReturnType<typeof profiledApp>, token: string): Promise<void> {
    const store = app.services.profiler!.store;
    for (let waited = 0; (await store.isPending(token)) && waited < 10_000; waited += 10) await tick(10);
  }

  /** An app on a fresh file store with one stored profile, of `/html`. */
  async function appWithProfile(): Promise<{ app: ReturnType<typeof profiledApp>; dir: string; token: string }> {
    const dir = tempDir();
    const app = profiledApp({ profilerDsn: `file:${dir}`, routes: fixtureRoutes() });
    const token = (await get(app, '/html')).headers.get('x-debug-token')!;
    await written(app, token);
    return { app, dir, token };
  }

  test('regression: a profile file that was valid JSON but no profile made every profiler page and the toolbar answer 500', async () => {
    const { app, dir, token } = await appWithProfile();
    const file = join(dir, `${token}.json`);
    const genuine = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const page = await get(app, `/_profiler/${token}?panel=logs`);
    assert.equal(page.status, 200);
    assert.ok(!(await page.text()).includes('not found'), 'a profile the app wrote is shown');

    const variants: [string, string][] = [
      ['{}', '{}'],
      ['[]', '[]'],
      ['1', '1'],
      ['a string', '"x"'],
      ['null', 'null'],
      ['only a token', JSON.stringify({ token })],
      ['logs not an array', JSON.stringify({ ...genuine, logs: 5 })],
      ['events an object', JSON.stringify({ ...genuine, events: {} })],
      ['request missing', JSON.stringify({ ...genuine, request: undefined })],
      ['an exception without its fields', JSON.stringify({ ...genuine, exception: { class: 'X' } })],
      ['a header that is no string', JSON.stringify({ ...genuine, request: { ...(genuine.request as object), headers: { a: 1 } } })],
      ['another token', JSON.stringify({ ...genuine, token: token === 'abcdef' ? 'fedcba' : 'abcdef' })],
    ];
    for (const [what, content] of variants) {
      writeFileSync(file, content);
      for (const path of [`/_profiler/${token}`, `/_profiler/${token}?panel=logs`, `/_profiler/${token}?panel=performance`, `/_profiler/${token}/exception`, `/_profiler/${token}/router`]) {
        const r = await get(app, path);
        assert.equal(r.status, 200, `${what}: ${path}`);
        assert.ok((await r.text()).includes('<h2>Token not found</h2>'), `${what}: ${path} reads as not found`);
      }
      const wdt = await get(app, `/_wdt/${token}`);
      assert.equal(wdt.status, 404, `${what}: /_wdt`);
      assert.equal(await wdt.text(), '');
      const json = await get(app, `/_profiler/${token}`, { headers: { accept: 'application/json' } });
      assert.equal(json.status, 404, `${what}: JSON`);
      assert.deepEqual(await json.json(), { error: `Token "${token}" not found.` });
    }
  });

  test('regression: one index line with the wrong field types made every search by url or ip answer 500', async () => {
    const { app, dir, token } = await appWithProfile();
    const bad = [
      { token: 'abcdef', ip: null, method: 'GET', url: 5, time: 1, status: 200 },
      { token: 'abcdee', ip: '127.0.0.1', method: 'GET', url: `${ORIGIN}/html`, time: 'yesterday', status: 200 },
      { token: 'abcded', ip: '127.0.0.1', method: 7, url: `${ORIGIN}/html`, time: 1, status: '200' },
      { token: 'abcdec', ip: '127.0.0.1', method: 'GET', url: `${ORIGIN}/html`, time: 1, status: 200, bytes: '12' },
    ].map((line) => JSON.stringify(line) + '\n');
    writeFileSync(join(dir, 'index.ndjson'), readFileSync(join(dir, 'index.ndjson'), 'utf8') + bad.join(''));

    for (const path of ['/_profiler/empty/search/results?url=html', '/_profiler/empty/search/results?ip=127', '/_profiler/empty/search/results?method=GET&status=200', '/_profiler/empty/search/results']) {
      const r = await get(app, path);
      assert.equal(r.status, 200, path);
      const body = await r.text();
      assert.ok(body.includes(token), `${path} lists the genuine profile`);
      assert.ok(!/abcde[c-f]/.test(body.replace(token, '')), `${path} leaves the bad lines out`);
    }
    const search = await get(app, '/_profiler/search?url=html');
    assert.equal(search.status, 302);
    assert.equal(new URL(search.headers.get('location')!, ORIGIN).pathname, `/_profiler/${token}/search/results`);
    const json = await get(app, '/_profiler/empty/search/results?ip=1', { headers: { accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.deepEqual((await json.json()).results.map((s: { token: string }) => s.token), [token]);

    // The next write still keeps the index (and its bound) going.
    const next = (await get(app, '/json')).headers.get('x-debug-token')!;
    await written(app, next);
    const listed = await get(app, '/_profiler/empty/search/results?url=json', { headers: { accept: 'application/json' } });
    assert.deepEqual((await listed.json()).results.map((s: { token: string }) => s.token), [next]);
  });
});

describe('file store: the response never waits for the disk', () => {
  /** `promise`, or a rejection after `ms`: a hung response fails the test instead of hanging it. */
  async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  test('regression: with a stalled profile directory every debug response waited on the disk for ever', async (t) => {
    const app = profiledApp({ profilerDsn: `file:${tempDir()}`, routes: fixtureRoutes() });
    const fs = await import('node:fs/promises');
    const never = () => new Promise<never>(() => {});
    // A hung mount: nothing the store asks of the directory ever settles.
    const stalled = { ...fs, mkdir: never, open: never, writeFile: never, appendFile: never, rename: never, readFile: never, stat: never };
    (app.services.profiler!.store as unknown as { fsModule: Promise<unknown> }).fsModule = Promise.resolve(stalled);

    for (let i = 0; i < 3; i++) {
      const r = await within(get(app, '/html'), 1000);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('x-debug-token') ?? '', /^[0-9a-f]{6}$/, 'the token goes out, its file is created after the response');
      assert.ok((await r.text()).includes('id="irms-wdt-'));
    }

    // Once the directory has not answered for a while, responses go out unprofiled, and the log says why.
    const realNow = Date.now.bind(Date);
    t.mock.method(Date, 'now', () => realNow() + 60_000);
    for (let i = 0; i < 3; i++) {
      const r = await within(get(app, '/html'), 1000);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('x-debug-token'), null);
      assert.ok((await r.text()).includes('<h1>HTML</h1>'));
    }
    assert.ok(
      app.logs.some((l) => /profiler\.ERROR: The profiler could not reserve a token: The profile directory ".*" has not answered for \d+ ms/.test(l)),
      app.logs.filter((l) => l.includes('profiler.')).join('\n'),
    );
  });

  test('a token handed out before its file existed is not written over another process\'s profile', async () => {
    const dir = tempDir();
    const store = new FileProfileStore(dir, 10);
    const token = store.reserveToken();
    // Another process creates the same token's file before this one's reservation lands.
    writeFileSync(join(dir, `${token}.json`), JSON.stringify(fakeProfile(token, { url: `${ORIGIN}/other-process` })));
    await assert.rejects(store.write(fakeProfile(token)), /reserved by another process/);
    assert.equal((await store.read(token))?.url, `${ORIGIN}/other-process`);
    assert.equal(await store.isPending(token), false);
    await store.close();
  });
});
