#!/usr/bin/env node
// Hot-path CPU profile of an irms-web server under wrk load.
//
//   node bench/profile.mjs [--server irms-prod] [--route all|mixed|root|user|404|echo] [--seconds 5] [--top 25]
//   node bench/profile.mjs --inprocess [--mode prod|debug] [--route ...]   # app.fetch(new Request(...)) in a loop, no network
//   node bench/profile.mjs --server irms-deno [--route ...]   # a Deno server (irms-deno, floor-deno, deno-plain) under `deno run --cpu-prof`
//
// Starts the server pinned to core 0 under `node --cpu-prof`, drives it with wrk (pinned to core 1,
// -t1 -c50) on each route in turn (`all`, the default: root, user, 404, echo, one profile each) or on the
// four routes cycled (`mixed`), stops it with SIGTERM (the server exits normally, so V8 writes the
// profile), then lists the functions with the most self time. Positions in dist/*.js are mapped back to
// src/*.ts through the bundle's source map. Profiles: bench/results/profile/*.cpuprofile (open them in
// Chrome DevTools → Performance, or speedscope). Summary: bench/results/profile/summary-<server>.{json,md} (summary-inprocess-<mode> for --inprocess).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, existsSync, rmSync, openSync, closeSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mdTable, fmt } from './lib/stats.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const SERVER = arg('--server', 'irms-prod');
const ROUTE = arg('--route', 'all');
const SECONDS = Number(arg('--seconds', 5));
const TOP = Number(arg('--top', 25));
const OUT = path.join(ROOT, 'bench/results/profile');
const ECHO_BODY = '{"hello":"world","n":42,"list":[1,2,3]}';
const ROUTES = {
  root: { method: 'GET', path: '/' },
  user: { method: 'GET', path: '/users/42' },
  404: { method: 'GET', path: '/does-not-exist' },
  echo: { method: 'POST', path: '/echo', body: ECHO_BODY },
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const INPROC = argv.includes('--inprocess');
const MODE = arg('--mode', 'prod');
/** The Deno servers run under Deno's own `--cpu-prof` (same .cpuprofile format); the rest under Node's. */
const ON_DENO = /deno/.test(SERVER);
const DENO = path.join(ROOT, 'node_modules/.bin/deno');

/** Child side of --inprocess: `app.fetch(new Request(...))` for SECONDS on one route. */
async function loop(route) {
  const { makeApp } = await import('./servers/irms-app.mjs');
  const app = makeApp(MODE, { logSink: () => {} });
  const r = ROUTES[route];
  const mk = r.body ? () => new Request('http://localhost' + r.path, { method: 'POST', body: r.body, headers: { 'content-type': 'application/json' } }) : () => new Request('http://localhost' + r.path);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < SECONDS * 1000) {
    for (let i = 0; i < 64; i++) await app.fetch(mk());
    n += 64;
    await new Promise((res) => setImmediate(res)); // let kernel.terminate timers run (debug)
  }
  console.log(`${Math.round(n / SECONDS)} ops/s in-process`);
}

async function profileInProcess(label) {
  const name = `inprocess-${MODE}-${label}.cpuprofile`;
  rmSync(path.join(OUT, name), { force: true });
  const o = await run('taskset', ['-c', '0', process.execPath, '--cpu-prof', '--cpu-prof-dir', OUT, '--cpu-prof-name', name, fileURLToPath(import.meta.url), '--loop', label, '--seconds', String(SECONDS), '--mode', MODE]);
  return { file: path.join(OUT, name), report: o.trim().split('\n').pop() };
}

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} exited ${code}: ${out}`))));
  });
}

async function profileOnce(label, routes) {
  const name = `${SERVER}-${label}.cpuprofile`;
  rmSync(path.join(OUT, name), { force: true });
  const logFd = openSync(path.join(OUT, `${SERVER}-${label}.stderr.log`), 'w');
  const script = `bench/servers/${SERVER}.mjs`;
  const command = ON_DENO
    ? [DENO, 'run', '-A', '--cpu-prof', `--cpu-prof-dir=${OUT}`, `--cpu-prof-name=${name}`, script]
    : [process.execPath, '--cpu-prof', '--cpu-prof-dir', OUT, '--cpu-prof-name', name, script];
  const child = spawn('taskset', ['-c', '0', ...command], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warning', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', logFd],
  });
  closeSync(logFd);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  for (let i = 0; !out.includes('READY'); i++) {
    if (child.exitCode !== null || i > 300) throw new Error(`${SERVER} did not start`);
    await sleep(50);
  }
  const url = `http://127.0.0.1:${out.match(/READY (\d+)/)[1]}`;
  // a 1-s warm-up on the same route(s), then the profiled load (the profile covers both)
  let report = '';
  for (const r of routes) {
    const wrk = (secs) =>
      run('taskset', ['-c', '1', 'wrk', '-t1', '-c50', `-d${secs}s`, '-s', r === 'mixed' ? 'bench/wrk/mixed.lua' : 'bench/wrk/route.lua', url + (r === 'mixed' ? '/' : ROUTES[r].path)], {
        env: { ...process.env, WRK_METHOD: ROUTES[r]?.method ?? 'GET', WRK_BODY: ROUTES[r]?.body ?? '' },
      });
    await wrk(1);
    const o = await wrk(SECONDS);
    report += `${Math.round(Number(o.match(/Requests\/sec:\s+([\d.]+)/)?.[1]))} req/s under the profiler\n`;
  }
  child.kill('SIGTERM');
  for (let i = 0; child.exitCode === null && i < 200; i++) await sleep(50);
  const file = path.join(OUT, name);
  for (let i = 0; !existsSync(file) && i < 100; i++) await sleep(50);
  if (!existsSync(file)) throw new Error(`no profile written (${file})`);
  return { file, report };
}

// ---------------------------------------------------------------------------------------------- analysis

const maps = new Map();
function sourceMapFor(url) {
  if (!url.startsWith('file://') || !url.includes('/dist/')) return null;
  if (!maps.has(url)) {
    try {
      const p = fileURLToPath(url) + '.map';
      maps.set(url, new SourceMap(JSON.parse(readFileSync(p, 'utf8'))));
    } catch {
      maps.set(url, null);
    }
  }
  return maps.get(url);
}

function location(cf) {
  const url = cf.url || '';
  const sm = sourceMapFor(url);
  if (sm && cf.lineNumber >= 0) {
    const e = sm.findEntry(cf.lineNumber, cf.columnNumber);
    if (e?.originalSource) {
      const src = e.originalSource.replace(/^.*?\/(src\/)/, '$1');
      return { where: `${src}:${e.originalLine + 1}`, file: src, kind: 'irms-web' };
    }
  }
  if (!url) return { where: '', file: '(native)', kind: 'native/V8' };
  if (url.startsWith('node:')) return { where: `${url}:${cf.lineNumber + 1}`, file: url, kind: 'node internals' };
  if (url.startsWith('ext:')) return { where: `${url}:${cf.lineNumber + 1}`, file: url, kind: 'deno internals' };
  const rel = url.startsWith('file://') ? path.relative(ROOT, fileURLToPath(url)) : url;
  if (rel.includes('node_modules/')) return { where: `${rel.replace(/^.*node_modules\//, '')}:${cf.lineNumber + 1}`, file: rel, kind: 'dependencies' };
  return { where: `${rel}:${cf.lineNumber + 1}`, file: rel, kind: rel.startsWith('dist/') || rel.startsWith('src/') ? 'irms-web' : 'bench/other' };
}

export function analyze(file, top = TOP) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i] ?? 0;
    self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self.entries()].filter(([id]) => byId.get(id).callFrame.functionName === '(idle)').reduce((a, [, v]) => a + v, 0);
  const busy = total - idle;
  const fns = new Map();
  const kinds = new Map();
  const files = new Map();
  for (const [id, us] of self) {
    const cf = byId.get(id).callFrame;
    if (cf.functionName === '(idle)') continue;
    const loc = location(cf);
    const fname = cf.functionName || '(anonymous)';
    const key = `${fname}|${loc.where}`;
    const kind = ON_DENO && fname.startsWith('op_') ? 'deno ops' : loc.kind;
    const e = fns.get(key) ?? { fn: fname, where: loc.where, kind, us: 0 };
    e.us += us;
    fns.set(key, e);
    const kindKey = ['(garbage collector)', '(program)'].includes(fname) ? fname : kind;
    kinds.set(kindKey, (kinds.get(kindKey) ?? 0) + us);
    if (loc.kind === 'irms-web') files.set(loc.file, (files.get(loc.file) ?? 0) + us);
  }
  const pct = (us) => (100 * us) / busy;
  return {
    file: path.relative(ROOT, file),
    sampledMs: total / 1000,
    busyMs: busy / 1000,
    top: [...fns.values()].sort((a, b) => b.us - a.us).slice(0, top).map((e) => ({ ...e, ms: e.us / 1000, pct: pct(e.us) })),
    byKind: [...kinds.entries()].sort((a, b) => b[1] - a[1]).map(([kind, us]) => ({ kind, ms: us / 1000, pct: pct(us) })),
    irmsByFile: [...files.entries()].sort((a, b) => b[1] - a[1]).map(([f, us]) => ({ file: f, ms: us / 1000, pct: pct(us) })),
  };
}

export function markdown(label, a, report = '') {
  const lines = [`#### ${INPROC ? `in-process app.fetch (${MODE})` : SERVER}, ${label}${report ? ' — ' + report.trim().replace(/\n/g, ', ') : ''} (${fmt(a.busyMs / 1000, 1)} s of busy samples)\n`];
  lines.push(mdTable(['#', 'function', 'where', 'kind', 'self %'], a.top.map((e, i) => [String(i + 1), `\`${e.fn}\``, e.where ? `\`${e.where}\`` : '', e.kind, fmt(e.pct, 1)])));
  lines.push('\nSelf time by kind: ' + a.byKind.map((k) => `${k.kind} ${fmt(k.pct, 1)} %`).join(', '));
  if (a.irmsByFile.length) lines.push('\nirms-web self time by source file: ' + a.irmsByFile.slice(0, 12).map((f) => `\`${f.file}\` ${fmt(f.pct, 1)} %`).join(', '));
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) && argv.includes('--loop')) {
  await loop(arg('--loop'));
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  mkdirSync(OUT, { recursive: true });
  // load the bundle's source maps now: dist/ may be rebuilt while the profiles run
  for (const f of ['index.js', 'node.js']) sourceMapFor(pathToFileURL(path.join(ROOT, 'dist', f)).href);
  const jobs = ROUTE === 'all' ? ['root', 'user', '404', 'echo'].map((r) => [r, [r]]) : [[ROUTE, [ROUTE]]];
  const summary = {};
  const md = [];
  for (const [label, routes] of jobs) {
    const { file, report } = INPROC ? await profileInProcess(label) : await profileOnce(label, routes);
    const a = analyze(file);
    summary[label] = { ...a, report };
    const m = markdown(label, a, report);
    md.push(m);
    console.log(m + '\n');
  }
  const base = INPROC ? `summary-inprocess-${MODE}` : `summary-${SERVER}`;
  const dist = path.join(ROOT, 'dist/index.js');
  const sha = existsSync(dist) ? createHash('sha256').update(readFileSync(dist)).digest('hex').slice(0, 16) : 'none';
  md.unshift(`Profiled ${new Date().toISOString()}, dist/index.js sha256 ${sha}…`);
  writeFileSync(path.join(OUT, `${base}.json`), JSON.stringify(summary, null, 2) + '\n');
  writeFileSync(path.join(OUT, `${base}.md`), md.join('\n\n') + '\n');
  console.log(`profiles and summary in ${path.relative(ROOT, OUT)}/`);
}
