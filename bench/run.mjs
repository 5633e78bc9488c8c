#!/usr/bin/env node
// `npm run bench`: the HTTP benchmark (wrk against every server), then the in-process, Deno and memory benches.
// Method (see BENCHMARKS.md): server pinned to one core (taskset -c 0), wrk to the other (taskset -c 1),
// every server checked on the 4 routes and warmed up, then rounds interleaved (server order rotates each
// round) so host drift hits all servers alike; medians over rounds, ratios to raw node:http (of medians, and paired by
// round), geo-means.
//
// Environment:
//   BENCH_QUICK=1          ~2-minute run (1 round x 2 s, no retries, 1 in-process pass, 10,000 memory requests)
//   BENCH_ROUNDS=3         rounds (each: every route x every server)
//   BENCH_DURATION=5       seconds of wrk per (round, route, server)
//   BENCH_WARMUP=2         seconds of mixed-route warm-up per server
//   BENCH_REWARM=1         seconds of unrecorded load on the route just before each measurement (0: none); a server
//                          left idle while the others are measured starts cold again (see BENCHMARKS.md, Method)
//   BENCH_CONNECTIONS=50   wrk keep-alive connections (1 wrk thread)
//   BENCH_SERVERS=a,b      subset/extra servers (default: node-http,irms-prod,irms-debug,hono,fastify,deno-plain,irms-deno,hono-deno,floor-node,floor-deno,
//                          node-batched,irms-prod-direct,deno-batched,irms-deno-direct,node-http-debug-page,deno-plain-page; also
//                          available: fetch-node = plain fetch handler on @hono/node-server)
//   BENCH_PARTS=http,latency,inprocess,deno,memory   which parts to run (default: all)
//   BENCH_LATENCY_SERVERS=a,b  servers of the latency cross-check (default: node-http,irms-prod,irms-debug,node-http-debug-page)
//   BENCH_SERVER_CPU=0 BENCH_LOAD_CPU=1      cores for taskset
//   BENCH_WAIT_QUIET=0     wait up to this many seconds for both cores to be idle before starting
//   BENCH_NOISE=0.2        a measurement is noisy when other processes took more than this share of a core;
//   BENCH_RETRIES=1        ... it is then repeated up to this many times (the quietest attempt is kept),
//   BENCH_RETRY_SHARE=0.1  ... within a budget of this share of all measurements
//   MEMORY_MODE=fetch      memory part: fetch (in-process app.fetch), http (the irms-debug server) or both
//   BENCH_OUT=bench/results/latest.json      where to write the results (a .md with the tables is written beside it;
//                          bench/results/ab/latest.json with BENCH_BASE)
//   BENCH_BASE=<commit>    A/B of a change: each irms-web server of the run also runs as `<name>@base`, from <commit>
//                          built apart (in the OS temp dir), measured beside it in the same rounds; the report adds each
//                          server's ratio to its base. Measure a hot-path change on both runtimes before keeping it, e.g.
//                          BENCH_BASE=HEAD~1 BENCH_SERVERS=irms-prod,irms-debug,irms-deno BENCH_PARTS=http npm run bench
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, existsSync, openSync, closeSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { median, min, max, geomean, fmt, fmtInt, mdTable } from './lib/stats.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const QUICK = env.BENCH_QUICK === '1';
const int = (v, d) => (v === undefined || v === '' ? d : Number(v));
const cfg = {
  quick: QUICK,
  rounds: int(env.BENCH_ROUNDS, QUICK ? 1 : 3),
  duration: int(env.BENCH_DURATION, QUICK ? 2 : 5),
  warmup: int(env.BENCH_WARMUP, QUICK ? 1 : 2),
  rewarm: int(env.BENCH_REWARM, QUICK ? 0 : 1),
  connections: int(env.BENCH_CONNECTIONS, 50),
  serverCpu: env.BENCH_SERVER_CPU ?? '0',
  loadCpu: env.BENCH_LOAD_CPU ?? '1',
  parts: (env.BENCH_PARTS || 'http,latency,inprocess,deno,memory').split(',').map((s) => s.trim()),
  // An A/B run (BENCH_BASE) does not replace the latest full run's results.
  out: path.resolve(ROOT, env.BENCH_OUT || (env.BENCH_BASE ? 'bench/results/ab/latest.json' : 'bench/results/latest.json')),
  // a measurement is "noisy" when other processes (or steal) took more than this share of either core
  noiseLimit: Number(env.BENCH_NOISE || 0.2),
  retries: int(env.BENCH_RETRIES, QUICK ? 0 : 1),
  waitQuiet: int(env.BENCH_WAIT_QUIET, 0),
};
const DENO = path.join(ROOT, 'node_modules/.bin/deno');
const NODE = process.execPath;
const DIST = path.join(ROOT, 'dist/index.js');

const ECHO_BODY = '{"hello":"world","n":42,"list":[1,2,3]}';
export const ROUTES = [
  { name: 'root', method: 'GET', path: '/', status: 200, body: 'ok' },
  { name: 'user', method: 'GET', path: '/users/42', status: 200, json: { id: '42' } },
  { name: '404', method: 'GET', path: '/does-not-exist', status: 404 },
  { name: 'echo', method: 'POST', path: '/echo', status: 200, json: JSON.parse(ECHO_BODY), reqBody: ECHO_BODY },
];

const denoRun = (file) => [DENO, 'run', '-A', '--no-lock', file];
const SERVERS = {
  'node-http': { cmd: [NODE, 'bench/servers/node-http.mjs'], what: 'raw node:http, hand-routed (the ceiling on Node)' },
  'irms-prod': { cmd: [NODE, 'bench/servers/irms-prod.mjs'], irms: true, what: 'irms-web, prod, dist/node.js serve()' },
  'irms-debug': { cmd: [NODE, 'bench/servers/irms-debug.mjs'], irms: true, what: 'irms-web, debug (every request profiled), dist/node.js serve()' },
  'irms-prod-direct': { cmd: [NODE, 'bench/servers/irms-prod.mjs'], irms: true, env: { BENCH_IRMS_BATCH: '0' }, what: 'irms-prod without batching under load (serve batch: false): each request answered in its socket read callback' },
  'node-batched': { cmd: [NODE, 'bench/servers/node-batched.mjs'], irms: true, what: "raw node:http's handler behind irms-web's batchUnderLoad (the ceiling with irms-web's scheduling)" },
  'irms-prod-quiet': { cmd: [NODE, 'bench/servers/irms-prod.mjs'], irms: true, env: { BENCH_IRMS_LOG_LEVEL: 'critical' }, what: 'irms-prod with logLevel critical (no ERROR line per 404)' },
  hono: { cmd: [NODE, 'bench/servers/hono.mjs'], what: 'Hono on @hono/node-server' },
  fastify: { cmd: [NODE, 'bench/servers/fastify.mjs'], what: 'Fastify 5, logger off' },
  'fetch-node': { cmd: [NODE, 'bench/servers/fetch-node.mjs'], what: 'plain fetch handler on @hono/node-server (adapter cost alone)' },
  'deno-plain': { cmd: denoRun('bench/servers/deno-plain.mjs'), deno: true, what: 'plain fetch handler on Deno.serve (the ceiling on Deno)' },
  'hono-deno': { cmd: denoRun('bench/servers/hono-deno.mjs'), deno: true, what: "Hono's app.fetch on Deno.serve (the framework peer on Deno)" },
  'irms-deno': { cmd: denoRun('bench/servers/irms-deno.mjs'), deno: true, irms: true, what: 'irms-web, prod, on Deno.serve through denoServeHandler (as dist/deno.js)' },
  'irms-deno-direct': { cmd: denoRun('bench/servers/irms-deno.mjs'), deno: true, irms: true, env: { BENCH_IRMS_BATCH: '0' }, what: 'irms-deno without batching under load (denoServeHandler batch: false): each request computed inside Deno\'s call' },
  'deno-batched': { cmd: denoRun('bench/servers/deno-batched.mjs'), deno: true, irms: true, what: "deno-plain's handler behind irms-web's denoServeHandler (the ceiling on Deno with irms-web's scheduling)" },
  'floor-node': { cmd: [NODE, 'bench/servers/floor-node.mjs'], irms: true, what: "irms-web's Node adapter replaying irms-prod's exact answers with no kernel (the most irms-prod can reach)" },
  // The baselines sending irms-web's own 404 pages (bench/servers/page-404.mjs).
  'node-http-debug-page': { cmd: [NODE, 'bench/servers/node-http.mjs'], irms: true, env: { BENCH_404_PAGE: 'debug' }, what: "raw node:http answering the 404 with irms-debug's 53 KB exception page, static (a debug 404's ceiling)" },
  'deno-plain-page': { cmd: denoRun('bench/servers/deno-plain.mjs'), deno: true, irms: true, env: { BENCH_404_PAGE: 'prod' }, what: "deno-plain answering the 404 with irms-web's 1 KB production page and one header (the page's size alone on Deno)" },
  'floor-deno': { cmd: denoRun('bench/servers/floor-deno.mjs'), deno: true, irms: true, what: "irms-web's Deno handler (denoServeHandler) replaying irms-deno's exact answers with no kernel (the most irms-deno can reach)" },
};
const DEFAULT_SERVERS = ['node-http', 'irms-prod', 'irms-debug', 'hono', 'fastify', 'deno-plain', 'irms-deno', 'hono-deno', 'floor-node', 'floor-deno', 'node-batched', 'irms-prod-direct', 'deno-batched', 'irms-deno-direct', 'node-http-debug-page', 'deno-plain-page'];

/**
 * BENCH_BASE: builds <commit> (git archive, this checkout's node_modules) once into the temp dir and gives each
 * irms-web server a twin `<name>@base` that runs the base's own server script on the base's dist/, listed right after
 * it so that the two are measured back to back in every round.
 */
function withBaseTwins(commit, names) {
  const sha = execFileSync('git', ['rev-parse', '--short', `${commit}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = path.join(os.tmpdir(), `irms-bench-base-${sha}`);
  if (!existsSync(path.join(dir, 'dist/index.js'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C "${dir}"`], { cwd: ROOT });
    if (!existsSync(path.join(dir, 'node_modules'))) symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    execFileSync(NODE, ['build.mjs', '--no-types'], { cwd: dir, stdio: 'ignore' });
  }
  log(`BENCH_BASE: ${sha} built in ${dir}`);
  return names.flatMap((name) => {
    const def = SERVERS[name];
    if (!name.startsWith('irms-')) return [name];
    const script = def.cmd.find((a) => a.startsWith('bench/servers/'));
    if (!existsSync(path.join(dir, script))) return [name];
    SERVERS[`${name}@base`] = { ...def, cmd: def.cmd.map((a) => (a === script ? path.join(dir, a) : a)), what: `${def.what}; built from ${sha}` };
    return [name, `${name}@base`];
  });
}

const log = (...a) => console.log(...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------- machine

function sh(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (e) {
    return (e.stdout || e.stderr || '').toString().trim() || null;
  }
}

export function machineInfo() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const field = (name) => cpuinfo.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1];
  return {
    date: new Date().toISOString(),
    nproc: Number(sh('nproc', [])),
    cpuModel: field('model name'),
    cpuFamily: field('cpu family'),
    cpuModelNumber: field('model'),
    cacheSize: field('cache size'),
    hypervisor: /\bhypervisor\b/.test(field('flags') || ''),
    memTotalGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    kernel: os.release(),
    node: process.version,
    deno: existsSync(DENO) ? sh(DENO, ['--version'])?.split('\n')[0] : null,
    wrk: sh('wrk', ['-v'])?.split('\n')[0] ?? null,
    loadavg: os.loadavg().map((x) => +x.toFixed(2)),
    gitCommit: sh('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']),
    // the working tree may be ahead of the commit: count changed files, and fingerprint the built bundle
    gitChangedFiles: (sh('git', ['-C', ROOT, 'status', '--porcelain']) || '').split('\n').filter(Boolean).length,
    distSha256: existsSync(DIST) ? createHash('sha256').update(readFileSync(DIST)).digest('hex').slice(0, 16) : null,
  };
}

// ---------------------------------------------------------------------------------------------- /proc/stat

function cpuTimes() {
  const out = {};
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = line.match(/^cpu(\d+)\s+(.*)$/);
    if (!m) continue;
    const v = m[2].split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal
    const idle = v[3] + v[4];
    const steal = v[7] || 0;
    const total = v.slice(0, 8).reduce((s, x) => s + x, 0);
    out[m[1]] = { idle, steal, total };
  }
  return out;
}

function cpuDelta(a, b, cpu) {
  const x = a[cpu], y = b[cpu];
  if (!x || !y) return { busy: NaN, steal: NaN };
  const total = y.total - x.total;
  return { busy: (total - (y.idle - x.idle) - (y.steal - x.steal)) / total, steal: (y.steal - x.steal) / total };
}

// ---------------------------------------------------------------------------------------------- servers

const LOG_DIR = path.join(ROOT, 'bench/results/logs');

async function startServer(name, port) {
  const def = SERVERS[name];
  const [cmd, ...args] = def.cmd;
  // stderr goes to a file: no reader process on the hot path (irms-web logs every 404 at ERROR level).
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `${name}.stderr.log`);
  const fd = openSync(logFile, 'w');
  const child = spawn('taskset', ['-c', cfg.serverCpu, cmd, ...args], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warning', NODE_ENV: 'production', ...(def.env || {}) },
    stdio: ['ignore', 'pipe', fd],
  });
  closeSync(fd);
  let out = '';
  child.stdout.on('data', (d) => (out = (out + d).slice(-4000)));
  const errOut = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(0, 4000);
    } catch {
      return '';
    }
  };
  const deadline = Date.now() + 20000;
  while (!/READY/.test(out)) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${errOut()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start within 20 s:\n${errOut()}`);
    }
    await sleep(50);
  }
  const m = out.match(/READY (\d+) ?(.*)/);
  const bound = Number(m[1]);
  const note = m[2]?.trim() || '';
  return { name, port: bound, child, note, logFile, url: `http://127.0.0.1:${bound}`, stderr: errOut };
}

/** Keeps the head and tail of a big server log (a 404 run can write hundreds of MB). Returns the original size. */
function trimLog(file) {
  try {
    const size = statSync(file).size;
    if (size > 256 * 1024) {
      const buf = readFileSync(file);
      writeFileSync(file, Buffer.concat([buf.subarray(0, 64 * 1024), Buffer.from(`\n... [${size - 128 * 1024} bytes cut] ...\n`), buf.subarray(size - 64 * 1024)]));
    }
    return size;
  } catch {
    return 0;
  }
}

async function stopServer(s) {
  if (s.child.exitCode === null) {
    s.child.kill('SIGTERM');
    for (let i = 0; i < 60 && s.child.exitCode === null; i++) await sleep(50);
    if (s.child.exitCode === null) s.child.kill('SIGKILL');
  }
  if (s.stderrBytes === undefined) s.stderrBytes = trimLog(s.logFile);
}

/** Checks the four routes: status and body as specified. Returns the list of problems. */
async function validate(s) {
  const problems = [];
  for (const r of ROUTES) {
    try {
      const res = await fetch(s.url + r.path, {
        method: r.method,
        body: r.reqBody,
        headers: r.reqBody ? { 'content-type': 'application/json' } : {},
      });
      const text = await res.text();
      if (res.status !== r.status) problems.push(`${r.name}: status ${res.status}, expected ${r.status} (${text.slice(0, 120)})`);
      else if (r.body !== undefined && text !== r.body) problems.push(`${r.name}: body ${JSON.stringify(text.slice(0, 80))}`);
      else if (r.json !== undefined) {
        let parsed;
        try {
          parsed = JSON.parse(text);
        } catch {}
        if (!isDeepStrictEqual(parsed, r.json)) problems.push(`${r.name}: body ${text.slice(0, 120)}`);
      }
    } catch (e) {
      problems.push(`${r.name}: ${e.message}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------- wrk

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60000 };
function parseDuration(s) {
  const m = s.match(/^([\d.]+)(us|ms|s|m)$/);
  return m ? Number(m[1]) * UNIT_MS[m[2]] : NaN;
}

export function parseWrk(text) {
  const pct = {};
  for (const m of text.matchAll(/^\s+(50|75|90|99)%\s+([\d.]+(?:us|ms|s|m))\s*$/gm)) pct[m[1]] = parseDuration(m[2]);
  // `Latency  avg  stdev  max  +/- stdev`
  const latency = text.match(/^\s+Latency\s+\S+\s+\S+\s+([\d.]+(?:us|ms|s|m))/m);
  const sock = text.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const total = text.match(/(\d+) requests in ([\d.]+\w+)/);
  return {
    rps: Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? NaN),
    requests: total ? Number(total[1]) : NaN,
    p50: pct['50'] ?? NaN,
    p99: pct['99'] ?? NaN,
    max: latency ? parseDuration(latency[1]) : NaN,
    errors: sock ? sock.slice(1).reduce((s, x) => s + Number(x), 0) : 0,
    non2xx: Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0),
  };
}

/** Runs a load generator pinned to the load core; resolves to its stdout and stderr, rejects unless it exits 0. */
function runOnLoadCore(name, argv, extraEnv = {}, onSpawn) {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', cfg.loadCpu, ...argv], { cwd: ROOT, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    onSpawn?.(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}: ${out}`))));
  });
}

function runWrk(url, route, seconds, script, onSpawn) {
  const argv = ['wrk', '-t1', `-c${cfg.connections}`, `-d${seconds}s`, '--latency', '-s', script, url + route.path];
  return runOnLoadCore('wrk', argv, { WRK_METHOD: route.method, WRK_BODY: route.reqBody || '' }, onSpawn);
}

/** `[  12s]`: seconds since `start`, for progress lines. */
const since = (start) => `[${String(Math.round((Date.now() - start) / 1000)).padStart(4)}s]`;

/** utime+stime of a process (all its threads), in clock ticks (USER_HZ = 100 on Linux). */
function procTicks(pid) {
  if (!pid) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return NaN;
  }
}
const TICK = 0.01;

async function measureOnce(s, route) {
  if (cfg.rewarm > 0) await runWrk(s.url, route, cfg.rewarm, 'bench/wrk/route.lua');
  const before = cpuTimes();
  const pBefore = procTicks(s.child.pid);
  const t0 = process.hrtime.bigint();
  let wrkTicks = NaN;
  let wrkPid;
  const watcher = setInterval(() => {
    // wrk's CPU time, read just before it exits (a process's ticks vanish with it)
    const t = procTicks(wrkPid);
    if (Number.isFinite(t)) wrkTicks = t;
  }, 250);
  let text;
  try {
    text = await runWrk(s.url, route, cfg.duration, 'bench/wrk/route.lua', (c) => (wrkPid = c.pid));
  } finally {
    clearInterval(watcher);
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = cpuTimes();
  const pAfter = procTicks(s.child.pid);
  const r = parseWrk(text);
  const srv = cpuDelta(before, after, cfg.serverCpu);
  const load = cpuDelta(before, after, cfg.loadCpu);
  if (!Number.isFinite(r.rps)) throw new Error(`could not parse wrk output:\n${text}`);
  const expectedNon2xx = route.status >= 300;
  const procShare = ((pAfter - pBefore) * TICK) / wall;
  const wrkShare = (wrkTicks * TICK) / wall;
  return {
    ...r,
    unexpectedNon2xx: expectedNon2xx ? 0 : r.non2xx,
    wallSeconds: wall,
    serverBusy: srv.busy,
    serverSteal: srv.steal,
    loadBusy: load.busy,
    // server-core CPU time per request (µs): less sensitive to steal than req/s
    cpuUsPerReq: (srv.busy * wall * 1e6) / r.requests,
    // the server process's own CPU time per request (µs), and its share of the server core
    procUsPerReq: ((pAfter - pBefore) * TICK * 1e6) / r.requests,
    procShare,
    wrkShare,
    // CPU taken by other processes (and steal) on the two cores during the measurement
    foreignServerCore: Math.max(0, srv.busy - procShare) + srv.steal,
    foreignLoadCore: Number.isFinite(wrkShare) ? Math.max(0, load.busy - wrkShare) + load.steal : NaN,
  };
}

const noisy = (m) => m.foreignServerCore > cfg.noiseLimit || m.foreignLoadCore > cfg.noiseLimit;

/** One measurement; retried (up to BENCH_RETRIES times) when other processes took > BENCH_NOISE of a core. Keeps the quietest attempt. */
let retryBudget = Infinity; // set per run: at most ~20 % extra measurements
async function measure(s, route) {
  let best;
  let tries = 0;
  const foreign = (x) => Math.max(x.foreignServerCore, x.foreignLoadCore || 0);
  for (;;) {
    const m = await measureOnce(s, route);
    tries++;
    if (!best || foreign(m) < foreign(best)) best = m;
    if (!noisy(m) || tries > cfg.retries || retryBudget <= 0) break;
    retryBudget--;
    await sleep(500);
  }
  best.attempts = tries;
  best.noisy = noisy(best);
  return best;
}

/** Waits (up to `limit` s) for 5 consecutive seconds with both cores < 15 % busy. */
async function waitQuiet(limit) {
  if (!limit) return true;
  const start = Date.now();
  let ok = 0;
  let prev = cpuTimes();
  while (Date.now() - start < limit * 1000) {
    await sleep(1000);
    const cur = cpuTimes();
    const busy = Math.max(...Object.keys(cur).map((c) => cpuDelta(prev, cur, c).busy));
    prev = cur;
    ok = busy < 0.15 ? ok + 1 : 0;
    if (ok >= 5) {
      log(`box quiet after ${Math.round((Date.now() - start) / 1000)} s`);
      return true;
    }
  }
  log(`! box not quiet after ${limit} s: other processes are using the CPUs; numbers will be noisy`);
  return false;
}

// ---------------------------------------------------------------------------------------------- HTTP part

async function httpBench(results) {
  const tStart = Date.now();
  let names = env.BENCH_SERVERS ? env.BENCH_SERVERS.split(',').map((s) => s.trim()) : DEFAULT_SERVERS;
  for (const n of names) if (!SERVERS[n]) throw new Error(`unknown server ${n}; known: ${Object.keys(SERVERS).join(', ')}`);
  if (env.BENCH_BASE) names = withBaseTwins(env.BENCH_BASE, names);
  if (!existsSync(DIST)) {
    log(`! ${path.relative(ROOT, DIST)} missing: irms-web servers skipped (run node build.mjs)`);
    names = names.filter((n) => !SERVERS[n].irms);
  }
  if (!existsSync(DENO)) names = names.filter((n) => !SERVERS[n].deno);

  const servers = [];
  const skipped = {};
  for (const name of names) {
    try {
      const s = await startServer(name, 0); // port 0: the OS picks a free port, the server reports it
      const problems = await validate(s);
      s.problems = problems;
      if (problems.length) log(`! ${name} fails checks: ${problems.join('; ')}`);
      servers.push(s);
      log(`${since(tStart)} started ${name} on :${s.port} (pid ${s.child.pid})${s.note ? ' ' + s.note : ''}`);
    } catch (e) {
      skipped[name] = e.message.split('\n').slice(0, 6).join(' | ');
      log(`! ${name} not started: ${e.message}`);
    }
  }
  try {
    const perServerSec = cfg.rounds * ROUTES.length * (cfg.duration + cfg.rewarm);
    log(`\nHTTP: ${servers.length} servers x ${ROUTES.length} routes x ${cfg.rounds} rounds x ${cfg.duration}s ≈ ${Math.ceil((servers.length * (perServerSec + cfg.warmup)) / 60)} min`);
    for (const s of servers) {
      await runWrk(s.url, ROUTES[0], cfg.warmup, 'bench/wrk/mixed.lua');
    }
    const raw = [];
    retryBudget = Math.ceil(Number(env.BENCH_RETRY_SHARE || 0.1) * cfg.rounds * ROUTES.length * servers.length);
    for (let round = 0; round < cfg.rounds; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      for (const route of ROUTES) {
        for (const s of order) {
          if (s.child.exitCode !== null) continue;
          const m = await measure(s, route);
          raw.push({ round, route: route.name, server: s.name, ...m });
          log(
            `${since(tStart)} round ${round + 1}/${cfg.rounds} ${route.name.padEnd(4)} ${s.name.padEnd(11)} ${fmtInt(m.rps).padStart(7)} req/s  p99 ${fmt(m.p99)} ms  ` +
              `server core ${Math.round(m.serverBusy * 100)}% (server ${Math.round(m.procShare * 100)}%, ${fmt(m.procUsPerReq, 1)} µs/req), load core ${Math.round(m.loadBusy * 100)}% (wrk ${Math.round(m.wrkShare * 100)}%)` +
              (m.noisy ? `  NOISY (others: ${Math.round(m.foreignServerCore * 100)}%/${Math.round(m.foreignLoadCore * 100)}%)` : '') +
              (m.attempts > 1 ? ` [${m.attempts} attempts]` : '') +
              (m.errors || m.unexpectedNon2xx ? `  errors ${m.errors} non2xx ${m.unexpectedNon2xx}` : ''),
          );
        }
      }
    }
    for (const s of servers) if (s.child.exitCode !== null) skipped[s.name] = `exited during the run (${s.child.exitCode}): ${s.stderr().slice(-500)}`;
    await Promise.all(servers.map(stopServer));
    results.http = summarizeHttp(raw, servers, skipped);
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

export function summarizeHttp(raw, servers, skipped, base = env.BENCH_BASE) {
  const cells = {};
  for (const s of servers) {
    cells[s.name] = {};
    for (const r of ROUTES) {
      const ms = raw.filter((m) => m.server === s.name && m.route === r.name);
      if (!ms.length) continue;
      const pick = (k) => ms.map((m) => m[k]);
      cells[s.name][r.name] = {
        rps: median(pick('rps')),
        rpsMin: min(pick('rps')),
        rpsMax: max(pick('rps')),
        p99: median(pick('p99')),
        p50: median(pick('p50')),
        cpuUsPerReq: median(pick('cpuUsPerReq')),
        procUsPerReq: median(pick('procUsPerReq')),
        procShare: median(pick('procShare')),
        serverBusy: median(pick('serverBusy')),
        loadBusy: median(pick('loadBusy')),
        maxSteal: max(pick('serverSteal')),
        foreignServerCore: median(pick('foreignServerCore')),
        foreignLoadCore: median(pick('foreignLoadCore')),
        noisyRounds: ms.filter((m) => m.noisy).length,
        errors: pick('errors').reduce((a, b) => a + b, 0),
        unexpectedNon2xx: pick('unexpectedNon2xx').reduce((a, b) => a + b, 0),
        rounds: ms.length,
      };
    }
  }
  const ratio = (a, b) => {
    const out = {};
    if (!cells[a] || !cells[b]) return null;
    for (const r of ROUTES) out[r.name] = cells[a][r.name]?.rps / cells[b][r.name]?.rps;
    out.geomean = geomean(ROUTES.map((r) => out[r.name]));
    return out;
  };
  // CPU-cost ratio: reference's server-process µs/request ÷ this server's (>1 = cheaper than the reference).
  // Less sensitive than req/s to steal, to other processes on the box and to wrk being the bottleneck.
  const costRatio = (a, b) => {
    const out = {};
    if (!cells[a] || !cells[b]) return null;
    for (const r of ROUTES) out[r.name] = cells[b][r.name]?.procUsPerReq / cells[a][r.name]?.procUsPerReq;
    out.geomean = geomean(ROUTES.map((r) => out[r.name]));
    return out;
  };
  // Paired by round: each round's ratio (the two servers measured within one pass over the servers, under a minute
  // apart), then the median over rounds. Drift of the host slower than a round cancels out of each pair.
  const rounds = [...new Set(raw.map((m) => m.round))];
  const pairedRatio = (a, b) => {
    const out = {};
    if (!cells[a] || !cells[b]) return null;
    for (const r of ROUTES) {
      const perRound = [];
      for (const round of rounds) {
        const x = raw.find((m) => m.server === a && m.route === r.name && m.round === round);
        const y = raw.find((m) => m.server === b && m.route === r.name && m.round === round);
        if (x && y) perRound.push(x.rps / y.rps);
      }
      out[r.name] = perRound.length ? median(perRound) : NaN;
    }
    out.geomean = geomean(ROUTES.map((r) => out[r.name]));
    return out;
  };
  const ratios = {};
  const pairedRatios = {};
  for (const s of servers) pairedRatios[s.name] = pairedRatio(s.name, 'node-http');
  const costRatios = {};
  for (const s of servers) ratios[s.name] = ratio(s.name, 'node-http');
  for (const s of servers) costRatios[s.name] = costRatio(s.name, 'node-http');
  // BENCH_BASE: each server against its twin built from the base commit.
  const toBase = {};
  for (const s of servers) {
    if (!cells[`${s.name}@base`]) continue;
    toBase[s.name] = { paired: pairedRatio(s.name, `${s.name}@base`), cost: costRatio(s.name, `${s.name}@base`) };
  }
  return {
    config: { rounds: cfg.rounds, duration: cfg.duration, warmup: cfg.warmup, rewarm: cfg.rewarm, connections: cfg.connections, serverCpu: cfg.serverCpu, loadCpu: cfg.loadCpu },
    servers: Object.fromEntries(servers.map((s) => [s.name, { what: SERVERS[s.name]?.what, command: SERVERS[s.name]?.cmd.map((x) => path.relative(ROOT, x) || x).join(' '), env: SERVERS[s.name]?.env, note: s.note, stderrBytes: s.stderrBytes, problems: s.problems }])),
    skipped,
    cells,
    ratioToNodeHttp: ratios,
    pairedRatioToNodeHttp: pairedRatios,
    pairedRatioIrmsDenoToDenoPlain: pairedRatio('irms-deno', 'deno-plain'),
    costRatioToNodeHttp: costRatios,
    ...(Object.keys(toBase).length ? { base, toBase } : {}),
    ratioIrmsDenoToDenoPlain: ratio('irms-deno', 'deno-plain'),
    costRatioIrmsDenoToDenoPlain: costRatio('irms-deno', 'deno-plain'),
    ratioIrmsDebugToIrmsProd: ratio('irms-debug', 'irms-prod'),
    ratioFloorDenoToDenoPlain: ratio('floor-deno', 'deno-plain'),
    ratioIrmsProdToFloorNode: ratio('irms-prod', 'floor-node'),
    ratioIrmsDenoToFloorDeno: ratio('irms-deno', 'floor-deno'),
    // The 404 pages' size alone: the baselines sending irms-web's own pages.
    ratioNodeHttpDebugPageToNodeHttp: ratio('node-http-debug-page', 'node-http'),
    ratioIrmsDebugToNodeHttpDebugPage: ratio('irms-debug', 'node-http-debug-page'),
    ratioDenoPlainPageToDenoPlain: ratio('deno-plain-page', 'deno-plain'),
    ratioFloorDenoToDenoPlainPage: ratio('floor-deno', 'deno-plain-page'),
    // Batching under load, taken apart: the scheduling alone (raw node:http with and without it), and irms-prod
    // against the ceiling with the same scheduling, and without it against the ceiling without it.
    ratioNodeBatchedToNodeHttp: ratio('node-batched', 'node-http'),
    ratioIrmsProdToNodeBatched: ratio('irms-prod', 'node-batched'),
    ratioIrmsProdDirectToNodeHttp: ratio('irms-prod-direct', 'node-http'),
    // The same on Deno.
    ratioDenoBatchedToDenoPlain: ratio('deno-batched', 'deno-plain'),
    ratioIrmsDenoToDenoBatched: ratio('irms-deno', 'deno-batched'),
    ratioIrmsDenoDirectToDenoPlain: ratio('irms-deno-direct', 'deno-plain'),
    // The framework peer on Deno: Hono on the same Deno.serve, and irms-web's own answers (no kernel) against it.
    ratioHonoDenoToDenoPlain: ratio('hono-deno', 'deno-plain'),
    ratioIrmsDenoToHonoDeno: ratio('irms-deno', 'hono-deno'),
    ratioFloorDenoToHonoDeno: ratio('floor-deno', 'hono-deno'),
    raw,
  };
}

export function httpTables(http) {
  const names = Object.keys(http.cells);
  const rn = ROUTES.map((r) => r.name);
  const out = [];
  const flag = (n) => (http.servers[n]?.problems?.length ? ' (!)' : '');
  out.push('#### Throughput, median req/s (min–max over rounds)\n');
  out.push(mdTable(['server', ...rn], names.map((n) => [n + flag(n), ...rn.map((r) => { const c = http.cells[n][r]; return c ? `${fmtInt(c.rps)} (${fmtInt(c.rpsMin)}–${fmtInt(c.rpsMax)})` : '–'; })])));
  out.push('\n#### Ratio to raw node:http (median req/s ÷ node-http median req/s)\n');
  out.push(mdTable(['server', ...rn, 'geo-mean'], names.filter((n) => http.ratioToNodeHttp[n]).map((n) => [n, ...rn.map((r) => fmt(http.ratioToNodeHttp[n][r])), `**${fmt(http.ratioToNodeHttp[n].geomean)}**`])));
  if (http.pairedRatioToNodeHttp) {
    out.push('\n#### Ratio to raw node:http, paired by round (median over rounds of each round\'s req/s ÷ node-http\'s)\n');
    const rows = names.filter((n) => http.pairedRatioToNodeHttp[n]).map((n) => [n, ...rn.map((r) => fmt(http.pairedRatioToNodeHttp[n][r])), `**${fmt(http.pairedRatioToNodeHttp[n].geomean)}**`]);
    const d = http.pairedRatioIrmsDenoToDenoPlain;
    if (d) rows.push(['irms-deno ÷ deno-plain', ...rn.map((r) => fmt(d[r])), `**${fmt(d.geomean)}**`]);
    out.push(mdTable(['server', ...rn, 'geo-mean'], rows));
  }
  const extra = [];
  if (http.ratioIrmsDenoToDenoPlain) extra.push(['irms-deno ÷ deno-plain', ...rn.map((r) => fmt(http.ratioIrmsDenoToDenoPlain[r])), `**${fmt(http.ratioIrmsDenoToDenoPlain.geomean)}**`]);
  if (http.ratioIrmsDebugToIrmsProd) extra.push(['irms-debug ÷ irms-prod', ...rn.map((r) => fmt(http.ratioIrmsDebugToIrmsProd[r])), `**${fmt(http.ratioIrmsDebugToIrmsProd.geomean)}**`]);
  // The floors: irms-web's own answers replayed without a kernel; what is left of each gap is the kernel's.
  for (const [key, label] of [
    ['ratioFloorDenoToDenoPlain', 'floor-deno ÷ deno-plain (best irms-deno can reach)'],
    ['ratioIrmsProdToFloorNode', 'irms-prod ÷ floor-node (kernel share on Node)'],
    ['ratioIrmsDenoToFloorDeno', 'irms-deno ÷ floor-deno (kernel share on Deno)'],
    ['ratioNodeHttpDebugPageToNodeHttp', 'node-http-debug-page ÷ node-http (sending the debug 404 page alone)'],
    ['ratioIrmsDebugToNodeHttpDebugPage', 'irms-debug ÷ node-http-debug-page'],
    ['ratioDenoPlainPageToDenoPlain', 'deno-plain-page ÷ deno-plain (sending the 1 KB 404 page alone)'],
    ['ratioFloorDenoToDenoPlainPage', 'floor-deno ÷ deno-plain-page (the contract headers)'],
    ['ratioNodeBatchedToNodeHttp', 'node-batched ÷ node-http (the batching alone)'],
    ['ratioIrmsProdToNodeBatched', 'irms-prod ÷ node-batched (both batched under load)'],
    ['ratioIrmsProdDirectToNodeHttp', 'irms-prod-direct ÷ node-http (neither batched)'],
    ['ratioDenoBatchedToDenoPlain', 'deno-batched ÷ deno-plain (the batching alone)'],
    ['ratioIrmsDenoToDenoBatched', 'irms-deno ÷ deno-batched (both batched under load)'],
    ['ratioIrmsDenoDirectToDenoPlain', 'irms-deno-direct ÷ deno-plain (neither batched)'],
    ['ratioHonoDenoToDenoPlain', 'hono-deno ÷ deno-plain (Hono on Deno.serve)'],
    ['ratioIrmsDenoToHonoDeno', 'irms-deno ÷ hono-deno (irms-web against Hono on Deno)'],
    ['ratioFloorDenoToHonoDeno', "floor-deno ÷ hono-deno (irms-web's answers, no kernel, against Hono)"],
  ]) {
    if (http[key]) extra.push([label, ...rn.map((r) => fmt(http[key][r])), `**${fmt(http[key].geomean)}**`]);
  }
  if (extra.length) {
    out.push('\n#### Other ratios (median req/s)\n');
    out.push(mdTable(['ratio', ...rn, 'geo-mean'], extra));
  }
  if (http.toBase) {
    out.push(`\n#### Against the base build (BENCH_BASE=${http.base}): req/s ÷ the base's, paired by round; base's server-process µs/request ÷ this build's (>1 = cheaper)\n`);
    const rows = [];
    for (const [n, { paired, cost }] of Object.entries(http.toBase)) {
      rows.push([`${n}: req/s`, ...rn.map((r) => fmt(paired?.[r], 3)), `**${fmt(paired?.geomean, 3)}**`]);
      rows.push([`${n}: CPU cost`, ...rn.map((r) => fmt(cost?.[r], 3)), `**${fmt(cost?.geomean, 3)}**`]);
    }
    out.push(mdTable(['server', ...rn, 'geo-mean'], rows));
  }
  out.push('\n#### Latency p99, median over rounds (ms), at ' + http.config.connections + ' connections\n');
  out.push(mdTable(['server', ...rn], names.map((n) => [n, ...rn.map((r) => fmt(http.cells[n][r]?.p99))])));
  out.push('\n#### Server-core CPU per request, median µs (busy % of the server core × wall time ÷ requests)\n');
  out.push(mdTable(['server', ...rn], names.map((n) => [n, ...rn.map((r) => fmt(http.cells[n][r]?.cpuUsPerReq, 1))])));
  out.push('\n#### Server-process CPU per request, median µs (utime+stime of the server process ÷ requests; other processes excluded)\n');
  out.push(mdTable(['server', ...rn], names.map((n) => [n, ...rn.map((r) => fmt(http.cells[n][r]?.procUsPerReq, 1))])));
  out.push('\n#### CPU-cost ratio to raw node:http (node-http server-process µs/request ÷ server\'s; >1 = cheaper)\n');
  const cr = names.filter((n) => http.costRatioToNodeHttp?.[n]).map((n) => [n, ...rn.map((r) => fmt(http.costRatioToNodeHttp[n][r])), `**${fmt(http.costRatioToNodeHttp[n].geomean)}**`]);
  if (http.costRatioIrmsDenoToDenoPlain) cr.push(['irms-deno vs deno-plain', ...rn.map((r) => fmt(http.costRatioIrmsDenoToDenoPlain[r])), `**${fmt(http.costRatioIrmsDenoToDenoPlain.geomean)}**`]);
  out.push(mdTable(['server', ...rn, 'geo-mean'], cr));
  out.push('\n#### CPU, median %: server core busy / server process / others on the server core; others on the load core; noisy rounds\n');
  out.push(
    mdTable(['server', ...rn], names.map((n) => [n, ...rn.map((r) => {
      const c = http.cells[n][r];
      if (!c) return '–';
      const e = c.errors || c.unexpectedNon2xx ? `, err ${c.errors}/non-2xx ${c.unexpectedNon2xx}` : '';
      const pc = (x) => (Number.isFinite(x) ? Math.round(x * 100) : '–');
      return `${pc(c.serverBusy)}/${pc(c.procShare)}/${pc(c.foreignServerCore)}; ${pc(c.foreignLoadCore)}${c.noisyRounds ? `; ${c.noisyRounds} noisy` : ''}${e}`;
    })])),
  );
  const notes = names.filter((n) => http.servers[n]?.note || http.servers[n]?.stderrBytes > 0);
  if (notes.length) out.push('\nServer notes: ' + notes.map((n) => `${n}: ${[http.servers[n].note, http.servers[n].stderrBytes > 0 ? `${(http.servers[n].stderrBytes / 2 ** 20).toFixed(1)} MiB written to stderr` : ''].filter(Boolean).join(', ')}`).join('; '));
  const probs = names.filter((n) => http.servers[n]?.problems?.length);
  if (probs.length) out.push('\n(!) failed the route checks: ' + probs.map((n) => `${n}: ${http.servers[n].problems.join('; ')}`).join(' — '));
  if (Object.keys(http.skipped).length) out.push('\nNot measured: ' + Object.entries(http.skipped).map(([n, e]) => `${n} (${e})`).join('; '));
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------- latency cross-check

/**
 * wrk's latency figures beside a second closed-loop client's (bench/latency-client.mjs) on the same servers,
 * routes, connections and cores. wrk prints its percentiles corrected for coordinated omission, which on a
 * slow server turns a few slow requests into a tail of hundreds of milliseconds; the second client reports
 * the times it measured (BENCHMARKS.md, Method). Per round, route and server: a re-warm, then both clients
 * one after the other (their order alternates).
 */
const LATENCY_SERVERS = ['node-http', 'irms-prod', 'irms-debug', 'node-http-debug-page'];
const LATENCY_ROUTES = ['root', '404'];
const LATENCY_TOOLS = ['wrk', 'client'];

async function runLatencyClient(url, route, seconds) {
  const argv = [NODE, 'bench/latency-client.mjs', url + route.path, '--method', route.method, '--connections', String(cfg.connections), '--seconds', String(seconds)];
  if (route.reqBody) argv.push('--body', route.reqBody);
  const out = await runOnLoadCore('latency client', argv);
  try {
    return JSON.parse(out.trim().split('\n').pop());
  } catch (e) {
    throw new Error(`latency client: ${e.message}: ${out.slice(0, 500)}`);
  }
}

async function latencyBench() {
  const tStart = Date.now();
  const names = (env.BENCH_LATENCY_SERVERS ? env.BENCH_LATENCY_SERVERS.split(',').map((s) => s.trim()) : LATENCY_SERVERS).filter(
    (n) => SERVERS[n] && !(SERVERS[n].irms && !existsSync(DIST)) && !(SERVERS[n].deno && !existsSync(DENO)),
  );
  const routes = ROUTES.filter((r) => LATENCY_ROUTES.includes(r.name));
  const raw = [];
  const servers = [];
  try {
    for (const name of names) servers.push(await startServer(name, 0));
    log(`\nLatency cross-check: ${servers.length} servers x ${routes.length} routes x ${cfg.rounds} rounds x 2 clients x ${cfg.duration}s`);
    for (const s of servers) await runWrk(s.url, ROUTES[0], cfg.warmup, 'bench/wrk/mixed.lua');
    for (let round = 0; round < cfg.rounds; round++) {
      for (const route of routes) {
        for (const s of servers) {
          if (s.child.exitCode !== null) continue;
          if (cfg.rewarm > 0) await runWrk(s.url, route, cfg.rewarm, 'bench/wrk/route.lua');
          for (const tool of round % 2 ? [...LATENCY_TOOLS].reverse() : LATENCY_TOOLS) {
            const m = tool === 'wrk' ? parseWrk(await runWrk(s.url, route, cfg.duration, 'bench/wrk/route.lua')) : await runLatencyClient(s.url, route, cfg.duration);
            raw.push({ round, route: route.name, server: s.name, tool, rps: m.rps, p50: m.p50, p99: m.p99, max: m.max, errors: m.errors });
            log(
              `${since(tStart)} round ${round + 1}/${cfg.rounds} ${route.name.padEnd(4)} ${s.name.padEnd(20)} ${tool.padEnd(6)} ` +
                `${fmtInt(m.rps).padStart(7)} req/s  p50 ${fmt(m.p50)}  p99 ${fmt(m.p99)}  max ${fmt(m.max)} ms${m.errors ? `  errors ${m.errors}` : ''}`,
            );
          }
        }
      }
    }
  } finally {
    await Promise.all(servers.map(stopServer));
  }
  return summarizeLatency(raw, cfg.connections);
}

export function summarizeLatency(raw, connections) {
  const cells = {};
  for (const r of raw) {
    const cell = ((cells[r.server] ??= {})[r.route] ??= {});
    (cell[r.tool] ??= []).push(r);
  }
  for (const byRoute of Object.values(cells)) {
    for (const cell of Object.values(byRoute)) {
      for (const tool of Object.keys(cell)) {
        const rs = cell[tool];
        cell[tool] = { rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)), max: median(rs.map((r) => r.max)), errors: rs.reduce((n, r) => n + (r.errors || 0), 0) };
      }
    }
  }
  return { connections, cells, raw };
}

export function latencyTable(latency) {
  const rows = [];
  for (const [server, byRoute] of Object.entries(latency.cells)) {
    for (const [route, cell] of Object.entries(byRoute)) {
      const w = cell.wrk ?? {};
      const c = cell.client ?? {};
      rows.push([`${server} ${route}`, fmtInt(w.rps), fmt(w.p50), fmt(w.p99), fmt(w.max), fmtInt(c.rps), fmt(c.p50), fmt(c.p99), fmt(c.max)]);
    }
  }
  return [
    `#### Latency at ${latency.connections} connections, wrk and a second closed-loop client (bench/latency-client.mjs), medians over rounds (ms)\n`,
    mdTable(['server, route', 'wrk req/s', 'wrk p50', 'wrk p99', 'wrk max', 'client req/s', 'client p50', 'client p99', 'client max'], rows),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------- other parts

function runPart(label, cmd, args, jsonFile) {
  const show = (x) => (x.startsWith(ROOT) ? path.relative(ROOT, x) : x === NODE ? 'node' : x);
  log(`\n=== ${label}: ${[cmd, ...args].map(show).join(' ')}`);
  const t = Date.now();
  const res = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env: { ...env, BENCH_QUICK: QUICK ? '1' : '' } });
  if (res.status !== 0) {
    log(`! ${label} failed (exit ${res.status})`);
    return { error: `exit ${res.status}` };
  }
  try {
    const out = JSON.parse(readFileSync(jsonFile, 'utf8'));
    out.partSeconds = Math.round((Date.now() - t) / 1000);
    return out;
  } catch (e) {
    return { error: e.message };
  }
}

// ---------------------------------------------------------------------------------------------- goals

export function goals(results) {
  const rows = [];
  const add = (goal, target, value, ok, note = '') => rows.push({ goal, target, value, ok, note });
  const h = results.http;
  const g = (n) => h?.ratioToNodeHttp?.[n]?.geomean;
  const paired = (r) => (Number.isFinite(r?.geomean) ? `paired by round: ${fmt(r.geomean)}` : '');
  if (h) {
    add('Node prod geo-mean vs raw node:http', '≥ 0.85', g('irms-prod'), g('irms-prod') >= 0.85, paired(h.pairedRatioToNodeHttp?.['irms-prod']));
    // Not goals: the same ratio with the scheduling held equal on both sides (see BENCHMARKS.md).
    const info = (goal, r) => {
      if (Number.isFinite(r?.geomean)) add(goal, 'info', r.geomean, null);
    };
    info('  … irms-prod ÷ raw node:http behind the same batching (node-batched)', h.ratioIrmsProdToNodeBatched);
    info('  … irms-prod without batching ÷ raw node:http', h.ratioIrmsProdDirectToNodeHttp);
    add('Node debug geo-mean vs raw node:http', '≥ 0.50', g('irms-debug'), g('irms-debug') >= 0.5, paired(h.pairedRatioToNodeHttp?.['irms-debug']));
    const d = h.ratioIrmsDenoToDenoPlain?.geomean;
    add('Deno prod geo-mean vs plain Deno.serve', '≥ 0.90', d, d >= 0.9, paired(h.pairedRatioIrmsDenoToDenoPlain));
    info('  … irms-deno ÷ plain Deno.serve behind the same batching (deno-batched)', h.ratioIrmsDenoToDenoBatched);
    info('  … irms-deno without batching ÷ plain Deno.serve', h.ratioIrmsDenoDirectToDenoPlain);
  }
  for (const [key, label] of [['inprocess', 'Node'], ['inprocessDeno', 'Deno']]) {
    const ip = results[key];
    const r = ip?.comparison?.irmsToHono?.geomean;
    if (ip && !ip.error) add(`in-process app.fetch irms ÷ Hono (${label})`, '≥ 1.00', r, r >= 1);
    // Deno only: app.fetch must build Deno's own Response there, so the floor bounds it (on Node it does not).
    const floor = ip?.comparison?.floorToHono?.geomean;
    if (key === 'inprocessDeno' && Number.isFinite(floor)) add(`  … irms-web's answers with no kernel (floor) ÷ Hono (${label})`, 'info', floor, null);
    const read = ip?.comparison?.irmsToHonoRead?.geomean;
    if (Number.isFinite(read)) add(`  … the same with each response's body read (${label})`, 'info', read, null);
    const sc = ip?.scaling?.irms?.ratio1000to10;
    if (sc !== undefined) add(`1,000 vs 10 routes, per-request time (${label})`, '≤ 1.30', sc, sc <= 1.3);
  }
  const mem = results.memory;
  if (mem && !mem.error) {
    for (const r of mem.results ?? []) {
      add(`debug, ${mem.requests.toLocaleString('en-US')} requests (${r.mode === 'fetch' ? 'app.fetch' : 'HTTP'}): RSS growth over 2nd half`, '< 10 %', r.rssGrowthSecondHalfPct, r.rssGrowthSecondHalfPct < 10, r.mode === 'fetch' ? `profile store at end: ${r.profileStoreSize ?? 'n/a'}` : '');
    }
  }
  return rows;
}

export function goalsTable(rows) {
  return mdTable(
    ['goal', 'target', 'measured', 'met?'],
    rows.map((r) => [r.goal, r.target, r.goal.includes('RSS') ? `${fmt(r.value, 1)} %` : fmt(r.value), (Number.isFinite(r.value) ? (r.ok === null ? '—' : r.ok ? 'yes' : '**no**') : 'n/a') + (r.note ? ` (${r.note})` : '')]),
  );
}

// ---------------------------------------------------------------------------------------------- main

async function main() {
  const started = Date.now();
  mkdirSync(path.dirname(cfg.out), { recursive: true });
  const results = { machine: machineInfo(), config: cfg };
  log(`irms-web bench — ${results.machine.date}, ${results.machine.nproc} CPUs (${results.machine.cpuModel}), node ${process.version}, ${results.machine.deno}, ${results.machine.wrk}`);
  const tmp = (n) => path.join(path.dirname(cfg.out), `.part-${n}.json`);

  if (cfg.parts.includes('http')) {
    if (!sh('which', ['wrk'])) throw new Error('wrk not found: apt-get update && apt-get install -y wrk');
    results.quietAtStart = await waitQuiet(cfg.waitQuiet);
    const t = Date.now();
    await httpBench(results);
    results.http.elapsedSeconds = Math.round((Date.now() - t) / 1000);
    log('\n' + httpTables(results.http));
  }
  if (cfg.parts.includes('latency')) {
    const t = Date.now();
    results.latency = await latencyBench();
    results.latency.elapsedSeconds = Math.round((Date.now() - t) / 1000);
    log('\n' + latencyTable(results.latency));
  }
  if (cfg.parts.includes('inprocess')) results.inprocess = runPart('in-process (Node)', NODE, ['bench/inprocess.mjs', '--json', tmp('inprocess')], tmp('inprocess'));
  if (cfg.parts.includes('deno') && existsSync(DENO)) results.inprocessDeno = runPart('in-process (Deno)', DENO, ['run', '-A', '--no-lock', 'bench/inprocess-deno.mjs', '--json', tmp('deno')], tmp('deno'));
  if (cfg.parts.includes('memory')) results.memory = runPart('memory (debug mode)', 'taskset', ['-c', cfg.serverCpu, NODE, '--expose-gc', 'bench/memory.mjs', '--json', tmp('memory'), '--mode', env.MEMORY_MODE || 'fetch'], tmp('memory'));

  results.elapsedSeconds = Math.round((Date.now() - started) / 1000);
  writeReport(results, cfg.out);
}

/** Goals, the JSON and its Markdown tables beside it. */
function writeReport(results, out) {
  results.goals = goals(results);
  writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  const md = [`# bench results ${results.machine.date}`, ''];
  if (results.http) md.push('## HTTP (wrk)', '', httpTables(results.http), '');
  if (results.latency?.cells) md.push('## Latency cross-check', '', latencyTable(results.latency), '');
  for (const [k, title] of [['inprocess', 'In-process (Node)'], ['inprocessDeno', 'In-process (Deno)'], ['memory', 'Memory (debug mode)']]) {
    if (results[k]?.markdown) md.push(`## ${title}`, '', results[k].markdown, '');
  }
  md.push('## Goals', '', goalsTable(results.goals), '');
  writeFileSync(out.replace(/\.json$/, '.md'), md.join('\n'));
  log('\n## Goals\n\n' + goalsTable(results.goals));
  log(`\nwrote ${path.relative(ROOT, out)} and ${path.relative(ROOT, out.replace(/\.json$/, '.md'))} (${results.elapsedSeconds} s)`);
}

/**
 * `node bench/run.mjs --render [results.json]`: the tables and goals again from a run's raw measurements
 * (after a change to the report; nothing is measured).
 */
function render(file) {
  const results = JSON.parse(readFileSync(file, 'utf8'));
  const h = results.http;
  if (h?.raw) {
    const servers = Object.keys(h.cells).map((name) => ({ name, note: h.servers[name]?.note, problems: h.servers[name]?.problems ?? [], stderrBytes: h.servers[name]?.stderrBytes ?? 0 }));
    const { elapsedSeconds } = h;
    results.http = { ...summarizeHttp(h.raw, servers, h.skipped ?? {}), config: h.config, servers: h.servers, elapsedSeconds };
  }
  writeReport(results, file);
}

const isMain = !!process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain && process.argv[2] === '--render') {
  render(path.resolve(process.argv[3] || cfg.out));
} else if (isMain) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
