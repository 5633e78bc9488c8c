#!/usr/bin/env node
// Memory in debug mode (every request profiled): 20,000 mixed requests, RSS sampled every 1,000.
//
//   node --expose-gc bench/memory.mjs [--json out.json] [--mode fetch|http|both] [--requests 20000]
//
// Modes:
//   fetch  (default part of `npm run bench`) `app.fetch(new Request(...))` in this process, one request
//          at a time, the response body read; the event loop is yielded after every request so the
//          profiler's kernel.terminate work (scheduled on a timer) runs as it would in a server.
//   http   the irms-debug server (bench/servers/irms-debug.mjs) as a child process, 8 keep-alive
//          connections from this process; the server's RSS read from /proc/<pid>/status.
// The mix cycles GET / , GET /users/<n> (a new id each time), GET /missing-<n> (404), POST /echo.
// At each sample (every 1,000 requests): RSS first, then (fetch mode, with --expose-gc) a full GC and
// the heap used after it. Reported: RSS growth over the second half = (RSS@20,000 − RSS@10,000) ÷ RSS@10,000,
// and the profile store size at the end (fetch mode).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, mdTable } from './lib/stats.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name, d) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : d;
};
const TOTAL = Number(arg('--requests', process.env.MEMORY_REQUESTS || (process.env.BENCH_QUICK === '1' ? 10000 : 20000)));
const EVERY = 1000;
const MODE = arg('--mode', process.env.MEMORY_MODE || 'both');
const JSON_OUT = arg('--json');
const ECHO_BODY = '{"hello":"world","n":42,"list":[1,2,3]}';
const MB = 2 ** 20;

function mixed(i) {
  switch (i % 4) {
    case 0:
      return { method: 'GET', path: '/' };
    case 1:
      return { method: 'GET', path: `/users/${i}` };
    case 2:
      return { method: 'GET', path: `/missing-${i}` };
    default:
      return { method: 'POST', path: '/echo', body: ECHO_BODY };
  }
}

/** Finds the profile store's size through whatever the app exposes (the API is still settling). */
function profileStoreSize(app) {
  const s = app.services ?? {};
  const candidates = [s.profiler, s.profiler?.store, s.profileStore, s.profiles, app.profiler, app.profiler?.store, s.kernel?.profiler];
  for (const c of candidates) {
    if (!c) continue;
    for (const k of ['size', 'count', 'length']) {
      const v = typeof c[k] === 'function' ? c[k]() : c[k];
      if (typeof v === 'number') return v;
    }
    if (typeof c.list === 'function') {
      const l = c.list({ limit: 1e9 });
      if (Array.isArray(l)) return l.length;
    }
  }
  return null;
}

function summarize(samples, extra = {}) {
  const at = (n) => samples.find((s) => s.requests === n);
  const half = at(TOTAL / 2);
  const end = at(TOTAL);
  return {
    samples,
    rssStartMiB: samples[0].rss / MB,
    rssHalfMiB: half.rss / MB,
    rssEndMiB: end.rss / MB,
    rssPeakMiB: Math.max(...samples.map((s) => s.rss)) / MB,
    rssGrowthSecondHalfPct: ((end.rss - half.rss) / half.rss) * 100,
    heapHalfMiB: half.heapUsed != null ? half.heapUsed / MB : null,
    heapEndMiB: end.heapUsed != null ? end.heapUsed / MB : null,
    heapGrowthSecondHalfPct: half.heapUsed != null ? ((end.heapUsed - half.heapUsed) / half.heapUsed) * 100 : null,
    ...extra,
  };
}

async function viaFetch() {
  const { makeApp } = await import('./servers/irms-app.mjs');
  // Log lines (a 404 is logged at ERROR) are counted, not printed: they would flood the bench output.
  const logged = { lines: 0, bytes: 0 };
  const app = makeApp('debug', {
    logSink: (line) => {
      logged.lines++;
      logged.bytes += line.length + 1;
    },
  });
  const samples = [];
  const sample = (requests, seconds) => {
    const rss = process.memoryUsage().rss;
    let heapUsed = null;
    if (globalThis.gc) {
      globalThis.gc();
      heapUsed = process.memoryUsage().heapUsed;
    }
    samples.push({ requests, rss, heapUsed, seconds });
  };
  const t0 = performance.now();
  sample(0, 0);
  const statuses = {};
  for (let i = 1; i <= TOTAL; i++) {
    const r = mixed(i);
    const req = new Request('http://localhost' + r.path, r.body ? { method: r.method, body: r.body, headers: { 'content-type': 'application/json' } } : { method: r.method });
    const res = await app.fetch(req);
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    await new Promise((resolve) => setImmediate(resolve));
    if (i % EVERY === 0) sample(i, (performance.now() - t0) / 1000);
  }
  // let the last terminate timers run before counting profiles
  await new Promise((resolve) => setTimeout(resolve, 20));
  return summarize(samples, { mode: 'fetch', statuses, logged, profileStoreSize: profileStoreSize(app), profilerDsn: app.config.profilerDsn, seconds: (performance.now() - t0) / 1000 });
}

function rssOf(pid) {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) * 1024 : NaN;
}

async function viaHttp() {
  let port;
  const child = spawn('taskset', ['-c', process.env.BENCH_SERVER_CPU ?? '0', process.execPath, 'bench/servers/irms-debug.mjs'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warning' },
    stdio: ['ignore', 'pipe', 'ignore'], // stderr (the ERROR line per 404) to /dev/null
  });
  try {
    await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = out.match(/READY (\d+)/);
        if (m) {
          port = Number(m[1]);
          resolve();
        }
      });
      child.on('exit', (c) => reject(new Error(`irms-debug exited ${c}`)));
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const one = (r) =>
      new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, method: r.method, path: r.path, agent, headers: r.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(r.body) } : {} }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        });
        req.on('error', reject);
        req.end(r.body);
      });
    const samples = [{ requests: 0, rss: rssOf(child.pid), heapUsed: null, seconds: 0 }];
    const statuses = {};
    const t0 = performance.now();
    let next = 1;
    const CONC = 8;
    let done = 0;
    await new Promise((resolve, reject) => {
      const launch = () => {
        if (next > TOTAL) return;
        const i = next++;
        one(mixed(i)).then((st) => {
          statuses[st] = (statuses[st] ?? 0) + 1;
          done++;
          if (done % EVERY === 0) samples.push({ requests: done, rss: rssOf(child.pid), heapUsed: null, seconds: (performance.now() - t0) / 1000 });
          if (done === TOTAL) resolve();
          else launch();
        }, reject);
      };
      for (let k = 0; k < CONC; k++) launch();
    });
    agent.destroy();
    return summarize(samples, { mode: 'http', statuses, profileStoreSize: null, seconds: (performance.now() - t0) / 1000 });
  } finally {
    child.kill('SIGTERM');
  }
}

function markdown(results) {
  const rows = results.map((r) => [
    r.mode === 'fetch' ? 'app.fetch in-process' : 'HTTP (irms-debug server)',
    fmt(r.rssStartMiB, 1),
    fmt(r.rssHalfMiB, 1),
    fmt(r.rssEndMiB, 1),
    fmt(r.rssPeakMiB, 1),
    `**${fmt(r.rssGrowthSecondHalfPct, 1)} %**`,
    r.heapHalfMiB != null ? `${fmt(r.heapHalfMiB, 1)} → ${fmt(r.heapEndMiB, 1)} (${fmt(r.heapGrowthSecondHalfPct, 1)} %)` : '–',
    r.profileStoreSize ?? 'n/a',
    fmt(r.seconds, 1),
  ]);
  const t = mdTable(['mode', 'RSS start MiB', `RSS @${TOTAL / 2}`, `RSS @${TOTAL}`, 'RSS peak', 'RSS growth, 2nd half', 'heap after GC, half → end MiB', 'profiles stored at end', 's'], rows);
  const series = results.map((r) => `- ${r.mode} RSS (MiB) every ${EVERY}: ${r.samples.map((s) => (s.rss / MB).toFixed(0)).join(' ')}`).join('\n');
  const st = results.map((r) => `- ${r.mode} statuses: ${JSON.stringify(r.statuses)}${r.logged ? `, ${r.logged.lines} log lines (${(r.logged.bytes / 1024).toFixed(0)} KiB) discarded` : ''}`).join('\n');
  return `${t}\n\n${series}\n${st}`;
}

if (!existsSync(path.join(ROOT, 'dist/index.js'))) {
  console.log('! dist/index.js missing: run node build.mjs');
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ error: 'dist missing' }) + '\n');
  process.exit(0);
}
const results = [];
if (MODE === 'fetch' || MODE === 'both') results.push(await viaFetch());
if (MODE === 'http' || MODE === 'both') results.push(await viaHttp());
const primary = results[0];
const out = {
  requests: TOTAL,
  every: EVERY,
  results,
  // headline (the first mode run; fetch by default)
  mode: primary.mode,
  rssGrowthSecondHalfPct: primary.rssGrowthSecondHalfPct,
  profileStoreSize: results.find((r) => r.profileStoreSize != null)?.profileStoreSize ?? null,
  markdown: markdown(results),
};
console.log(out.markdown);
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(out, null, 2) + '\n');
process.exit(0);
