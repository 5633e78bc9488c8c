/**
 * Two processes on one machine share a file store (CONTRACT §6.3): tokens stay unique across them,
 * the index sees every write, the `max` bound holds, and each process reads the other's profiles.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { profiledApp } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'irms-shared-profiler-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function runChild(count: number, max: number, label: string): Promise<string[]> {
  const script = fileURLToPath(new URL('./fixtures/file-store-child.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir, String(count), String(max), label], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

test('two processes share one file store', { timeout: 60_000 }, async () => {
  const COUNT = 150;
  const MAX = 50;
  const childTokens = runChild(COUNT, MAX, 'child');
  const app = profiledApp({ profilerDsn: `file:${dir}?max=${MAX}` });
  const store = app.services.profiler!.store;
  // Spread the parent's requests over the child's lifetime.
  const parentTokens: string[] = [];
  for (let round = 0; round < 10; round++) {
    const batch = await Promise.all(Array.from({ length: COUNT / 10 }, (_, i) => app.fetch(new Request(`http://127.0.0.1:8000/parent-${round}-${i}`))));
    parentTokens.push(...batch.map((r) => r.headers.get('x-debug-token')!));
    await new Promise((r) => setTimeout(r, 15));
  }
  for (const t of parentTokens) while (await store.isPending(t)) await new Promise((r) => setTimeout(r, 10));
  const fromChild = await childTokens;
  await store.close();

  const all = [...parentTokens, ...fromChild];
  assert.equal(all.length, 2 * COUNT);
  assert.equal(new Set(all).size, all.length, 'tokens unique across both processes');

  const index = readFileSync(join(dir, 'index.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).token as string);
  // Past the bound the index goes down to 90 % of it (a rewrite every tenth of `max`, not every batch).
  assert.ok(index.length <= MAX && index.length >= MAX - MAX / 10, `the bound holds: ${index.length} of ${MAX}`);
  assert.equal(new Set(index).size, index.length);
  const files = readdirSync(dir);
  const profiles = files.filter((n) => /^[0-9a-f]{6}\.json$/.test(n));
  assert.deepEqual(profiles.map((n) => n.slice(0, 6)).sort(), [...index].sort(), 'exactly the indexed profiles are on disk');
  for (const n of profiles) assert.ok(statSync(join(dir, n)).size > 0, `${n} is a written profile`);
  assert.ok(!files.includes('index.lock'), 'no lock left behind');
  assert.ok(!files.some((n) => n.startsWith('.tmp-')), 'no temporary files left behind');

  // Each process reads the other's profiles.
  const fromOther = index.filter((t) => fromChild.includes(t));
  assert.ok(fromOther.length > 0, 'the newest profiles include the child\'s');
  const profile = await app.services.profiler!.load(fromOther[0]!);
  assert.match(profile!.url, /\/child-\d+$/);
  const listed = await app.services.profiler!.find({ url: 'child', limit: 100 });
  assert.deepEqual(new Set(listed.map((s) => s.token)), new Set(fromOther));
  for (const t of all.filter((t) => !index.includes(t)).slice(0, 20)) assert.equal(await store.read(t), null, `evicted ${t}`);
});
