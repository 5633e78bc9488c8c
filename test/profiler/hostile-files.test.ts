/**
 * Files someone else put in a shared file store's directory (anyone who can create entries there can):
 * a profile whose numbers no collector writes, FIFOs under a profile's or the index's name. Each must
 * read as absent or render, never hang the process or answer 500.
 */
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { constants, closeSync, lstatSync, openSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { largest } from '../../src/debug/profiler/views/waterfall.ts';
import { get, profiledApp, removeTempDirs, tempDir, tick, fixtureRoutes } from './support.ts';

after(removeTempDirs);

type TestApp = ReturnType<typeof profiledApp>;

async function written(app: TestApp, token: string): Promise<void> {
  const store = app.services.profiler!.store;
  for (let waited = 0; (await store.isPending(token)) && waited < 10_000; waited += 10) await tick(10);
}

/** An app on a fresh file store with one stored profile, of `/html`. */
async function appWithProfile(): Promise<{ app: TestApp; dir: string; token: string }> {
  const dir = tempDir();
  const app = profiledApp({ profilerDsn: `file:${dir}`, routes: fixtureRoutes() });
  const token = (await get(app, '/html')).headers.get('x-debug-token')!;
  await written(app, token);
  return { app, dir, token };
}

function editProfile(dir: string, token: string, edit: (profile: Record<string, unknown>) => void): void {
  const file = join(dir, `${token}.json`);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(profile);
  writeFileSync(file, JSON.stringify(profile));
}

/** One page of an app on `dir`, answered in a child process killed after `ms`. */
function pageInChild(dir: string, path: string, ms: number): Promise<{ status: number; waterfall: boolean }> {
  const script = fileURLToPath(new URL('./fixtures/profile-page-child.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir, path], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path} got no answer within ${ms} ms`));
    }, ms);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`child exited ${code}: ${err}`));
    });
  });
}

/**
 * `promise`, or a failure after `ms`; then whoever waits to open the FIFO at `fifo` is released (a
 * writer opens and closes it), so that a failing run does not leave the test process hanging.
 */
async function withinFifo<T>(promise: Promise<T>, ms: number, fifo: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } catch (error) {
    for (let i = 0; i < 50; i++) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader waiting (ENXIO) or no FIFO any more
      }
      await tick(10);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
  // Older than a reservation: not waited for as a pending profile.
  const old = new Date(Date.now() - 120_000);
  utimesSync(path, old, old);
}

const fifoSupported = process.platform !== 'win32';

describe('file store: hostile profile files', () => {
  test('regression: a profile file whose listener times sum past Number.MAX_VALUE hung the process on its performance panel', { timeout: 60_000 }, async () => {
    const { app, dir, token } = await appWithProfile();
    await app.services.profiler!.store.close();
    editProfile(dir, token, (profile) => {
      const events = profile.events as { startMs: number; durationMs: number }[];
      events[0]!.startMs = 1e308;
      events[0]!.durationMs = 1e308;
    });
    assert.deepEqual(await pageInChild(dir, `/_profiler/${token}?panel=performance`, 20_000), { status: 200, waterfall: true });
  });

  test('regression: a profile file with 200,000 listener calls made its performance and events panels a 500', async () => {
    const { app, dir, token } = await appWithProfile();
    editProfile(dir, token, (profile) => {
      const call = (profile.events as unknown[])[0];
      profile.events = Array.from({ length: 200_000 }, () => call);
    });
    // So many calls no longer fit under the store's file size cap (the test below): the file reads as
    // absent, and the panels, built for the collector's 2,000 calls, never see it.
    for (const panel of ['performance', 'events']) {
      const r = await get(app, `/_profiler/${token}?panel=${panel}`);
      assert.equal(r.status, 200, panel);
      assert.ok((await r.text()).includes('<h2>Token not found</h2>'), panel);
    }
    // The panels' maximum stays a loop, not Math.max(...), should a larger bound ever let them through.
    assert.equal(largest(Array.from({ length: 200_000 }, (_, i) => i), 0.001), 199_999);
  });

  test('regression: a profile file whose exception status is no HTTP status made its exception page a 500', async () => {
    const dir = tempDir();
    const app = profiledApp({ profilerDsn: `file:${dir}`, routes: fixtureRoutes() });
    const token = (await get(app, '/boom')).headers.get('x-debug-token')!;
    await written(app, token);
    for (const status of [1, -5, 404.5, 99999]) {
      editProfile(dir, token, (profile) => {
        (profile.exception as { status: number }).status = status;
      });
      const page = await get(app, `/_profiler/${token}/exception`);
      assert.equal(page.status, 200, String(status));
      assert.ok((await page.text()).includes('Checkout failed'), `${status}: the exception page of the request`);
    }
  });

  test('regression: a profile file whose stack held a long line of " (" took minutes to render its exception page (a backtracking frame pattern)', async () => {
    const dir = tempDir();
    const app = profiledApp({ profilerDsn: `file:${dir}`, routes: fixtureRoutes() });
    const token = (await get(app, '/boom')).headers.get('x-debug-token')!;
    await written(app, token);
    editProfile(dir, token, (profile) => {
      const exception = profile.exception as { stack: string };
      exception.stack += `\n    at ${' ('.repeat(200_000)}`;
    });
    const started = performance.now();
    const page = await get(app, `/_profiler/${token}/exception`);
    assert.equal(page.status, 200);
    assert.ok((await page.text()).includes('Checkout failed'));
    // A bound for a stall, not a speed: the filter is synchronous, which the test's timeout cannot cut short.
    assert.ok(performance.now() - started < 10_000, `answered in ${(performance.now() - started).toFixed(0)} ms`);
  });

  test('regression: a profile file whose exception stack named a file outside the project (`.env`, /proc) made its exception page show that file\'s lines', async () => {
    const dir = tempDir();
    const app = profiledApp({ profilerDsn: `file:${dir}`, routes: fixtureRoutes() });
    const token = (await get(app, '/boom')).headers.get('x-debug-token')!;
    await written(app, token);
    const outside = join(tempDir(), 'secrets.txt');
    writeFileSync(outside, 'line one\nSECRET_OUTSIDE=canary-outside\nline three\n');
    const planted = join(dir, 'planted.ts');
    writeFileSync(planted, 'line one\nconst planted = "canary-in-store";\n');
    const project = join(process.cwd(), 'src', 'index.ts');
    editProfile(dir, token, (profile) => {
      const exception = profile.exception as { stack: string };
      exception.stack = [
        'Error: Checkout failed',
        `    at readsOutside (${outside}:2:1)`,
        `    at readsDotSegment (${process.cwd()}/.git/../src/index.ts:1:1)`,
        `    at readsStore (${planted}:2:1)`,
        `    at projectCode (${project}:1:1)`,
        '    at node:internal/process/task_queues:95:5',
      ].join('\n');
    });
    const page = await (await get(app, `/_profiler/${token}/exception`)).text();
    assert.ok(page.includes('Checkout failed'));
    assert.ok(!page.includes('canary-outside'), 'a file outside the project is not read');
    assert.ok(!page.includes('canary-in-store'), 'a file in the store\'s directory is not read');
    assert.ok(!page.includes('readsOutside') && !page.includes('readsDotSegment') && !page.includes('readsStore'), 'their frames are left out');
    assert.ok(page.includes('projectCode'), 'the project\'s frames stay');
    assert.ok(page.includes('Symfony-5-style HttpKernel on the Fetch API'), 'with their excerpt (src/index.ts, line 1)');
  });

  test('regression: a profile file nested 20,000 deep made its JSON answer, its Security panel and the toolbar a 500', async () => {
    const { app, dir, token } = await appWithProfile();
    const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
    editProfile(dir, token, (profile) => {
      (profile.security as Record<string, unknown>).memberId = '__DEEP__';
    });
    const file = join(dir, `${token}.json`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"__DEEP__"', deep));
    const json = await get(app, `/_profiler/${token}`, { headers: { accept: 'application/json' } });
    assert.equal(json.status, 404);
    assert.deepEqual(await json.json(), { error: `Token "${token}" not found.` });
    const panel = await get(app, `/_profiler/${token}?panel=security`);
    assert.equal(panel.status, 200);
    assert.ok((await panel.text()).includes('<h2>Token not found</h2>'));
    assert.equal((await get(app, `/_wdt/${token}`)).status, 404);
  });

  test('regression: a planted profile file of many megabytes was read whole on every view of its token', async () => {
    const { app, dir, token } = await appWithProfile();
    const file = join(dir, `${token}.json`);
    const profile = readFileSync(file, 'utf8');
    // JSON whitespace keeps the file a valid profile: only its size can tell it from one a collector wrote.
    writeFileSync(file, profile + ' '.repeat(1536 * 1024));
    const kept = await get(app, `/_profiler/${token}`, { headers: { accept: 'application/json' } });
    assert.equal(kept.status, 200, 'a file somewhat past the collector\'s 1 MiB bound still reads');
    writeFileSync(file, profile + ' '.repeat(8 * 1024 * 1024));
    const json = await get(app, `/_profiler/${token}`, { headers: { accept: 'application/json' } });
    assert.equal(json.status, 404);
    assert.deepEqual(await json.json(), { error: `Token "${token}" not found.` });
    assert.equal((await get(app, `/_wdt/${token}`)).status, 404);
  });

  test('regression: a FIFO under a token\'s name blocked its profile page (and a libuv pool thread) for ever', { skip: !fifoSupported }, async () => {
    const { app, dir, token } = await appWithProfile();
    const file = join(dir, `${token}.json`);
    unlinkSync(file);
    mkfifo(file);
    const page = await withinFifo(get(app, `/_profiler/${token}`), 3000, file);
    assert.equal(page.status, 200);
    assert.ok((await page.text()).includes(`Token "${token}" not found.`));
    const wdt = await withinFifo(get(app, `/_wdt/${token}`), 3000, file);
    assert.equal(wdt.status, 404);
  });

  test('regression: a FIFO as index.ndjson hung every search, and the next profile was never indexed', { skip: !fifoSupported }, async () => {
    const { app, dir } = await appWithProfile();
    const index = join(dir, 'index.ndjson');
    unlinkSync(index);
    mkfifo(index);
    const list = await withinFifo(get(app, '/_profiler/empty/search/results?limit=10', { headers: { accept: 'application/json' } }), 3000, index);
    assert.equal(list.status, 200);
    assert.deepEqual((await list.json()).results, []);

    const next = (await get(app, '/json')).headers.get('x-debug-token')!;
    await withinFifo(written(app, next), 3000, index);
    assert.ok(lstatSync(index).isFile(), 'the FIFO was replaced by a real index');
    const listed = await get(app, '/_profiler/empty/search/results?url=json', { headers: { accept: 'application/json' } });
    assert.deepEqual((await listed.json()).results.map((s: { token: string }) => s.token), [next]);
  });
});
