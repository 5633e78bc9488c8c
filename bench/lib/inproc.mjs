// In-process benchmark, shared by bench/inprocess.mjs (Node) and bench/inprocess-deno.mjs (Deno).
//
// A "subject" is a handler called in a loop, one fresh Request per call, awaited before the next:
//   irms         irms-web prod `app.fetch(new Request(url))`
//   hono         Hono `app.fetch(new Request(url))`
//   plain        a hand-routed `async (req) => new Response(...)`: Fetch objects and nothing else, with one header per
//                response where irms-web's answers carry three or more
//   floor        irms-web's exact production answers as native Responses, no kernel (servers/floor-handler.mjs): on
//                Deno the most irms-web's app.fetch can reach (it must hand back a native Response there); on Node
//                not a floor (app.fetch defers undici's Response, the floor builds it)
//   irms-handle  irms-web prod `app.handle(source)` with a plain-object RequestSource: the kernel without
//                Fetch Request/Response objects (what the Node adapter calls); informational
//   irms-read / hono-read / plain-read   the same, and the response body read with `text()` in the timed loop:
//                what a test or a JS-level adapter does with the response (irms-web's app.fetch on Node returns
//                a deferred Response, src/http/fetch-response.ts, so the two sets measure different things)
//   irms-scale-N / hono-scale-N   N routes `/r{i}/items/:id`; requests spread over the whole table
// Outside the *-read subjects, response bodies are not read in the timed loop (they are checked once before it).
//
// Each subject runs in its own process (no JIT cross-talk), pinned to one core with taskset; the
// orchestrator starts every subject once per pass and rotates the order between passes, so drift hits
// all subjects alike. Each pass: a warm-up (INPROC_WARM_MS per route, at least INPROC_WARM_TOTAL_MS in all),
// then RUNS timed runs per route of RUN_MS each (time-bounded, ops counted); the medians pool every run of
// every pass.
import { median, min, max, geomean, fmt, fmtInt, mdTable } from './stats.mjs';

const isDeno = typeof Deno !== 'undefined';
const getenv = (n) => (isDeno ? Deno.env.get(n) : process.env[n]);
const QUICK = getenv('BENCH_QUICK') === '1';
const num = (n, d) => (getenv(n) ? Number(getenv(n)) : d);
const CFG = {
  passes: num('INPROC_PASSES', QUICK ? 1 : 3),
  runs: num('INPROC_RUNS', 2),
  runMs: num('INPROC_RUN_MS', QUICK ? 150 : 200),
  warmMs: num('INPROC_WARM_MS', QUICK ? 150 : 250),
  // every subject gets at least this much warm-up in total (a one-route subject would otherwise be timed before
  // V8 has optimised it: the first 200-ms run of a scaling subject measured 3x slower)
  warmTotalMs: num('INPROC_WARM_TOTAL_MS', QUICK ? 500 : 1000),
  cpu: getenv('BENCH_SERVER_CPU') ?? '0',
  // 'cpu' (default): ops per CPU-second of the worker process (robust to other processes on the box);
  // 'wall': ops per wall-clock second. Both are recorded; this picks the one the tables use.
  metric: getenv('INPROC_METRIC') || 'cpu',
};

const ECHO_BODY = '{"hello":"world","n":42,"list":[1,2,3]}';
const ROUTES = {
  root: { method: 'GET', target: '/', status: 200, text: 'ok' },
  user: { method: 'GET', target: '/users/42', status: 200, json: { id: '42' } },
  404: { method: 'GET', target: '/does-not-exist', status: 404 },
  echo: { method: 'POST', target: '/echo', status: 200, json: JSON.parse(ECHO_BODY), body: ECHO_BODY },
};
const ROUTE_NAMES = Object.keys(ROUTES).sort((a, b) => ['root', 'user', '404', 'echo'].indexOf(a) - ['root', 'user', '404', 'echo'].indexOf(b));
export const MAIN_SUBJECTS = ['irms', 'hono', 'plain', 'floor', 'irms-handle', 'irms-read', 'hono-read', 'plain-read'];
export const SCALE_SIZES = [10, 100, 1000];
export const SCALE_SUBJECTS = SCALE_SIZES.flatMap((n) => [`irms-scale-${n}`, `hono-scale-${n}`]);

const base = 'http://localhost';
function requestFactory(r) {
  if (r.body !== undefined) {
    return () => new Request(base + r.target, { method: r.method, headers: { 'content-type': 'application/json' }, body: r.body });
  }
  return () => new Request(base + r.target);
}

/** A minimal RequestSource (src/http/source.ts) without any Fetch object. */
function sourceFactory(r) {
  const headers = r.body !== undefined
    ? [['host', 'localhost'], ['content-type', 'application/json'], ['content-length', String(new TextEncoder().encode(r.body).length)]]
    : [['host', 'localhost']];
  const bytes = r.body !== undefined ? new TextEncoder().encode(r.body) : null;
  return () => ({
    method: r.method,
    target: r.target,
    scheme: 'http',
    fallbackHost: 'localhost',
    remoteAddress: '127.0.0.1',
    protocol: 'HTTP/1.1',
    header(name) {
      for (const [k, v] of headers) if (k === name) return v;
      return null;
    },
    headers: () => headers,
    body: () =>
      bytes &&
      new ReadableStream({
        start(c) {
          c.enqueue(bytes);
          c.close();
        },
      }),
  });
}

function scaledRoutes(n) {
  // 100 request URLs hitting routes spread evenly over the table (first and last included)
  const urls = [];
  const K = 100;
  for (let k = 0; k < K; k++) urls.push({ i: Math.round((k * (n - 1)) / (K - 1)), id: String(1000 + k) });
  return urls;
}

/** Builds a subject: `ops[route]()` performs one request; `check[route]()` resolves to { status, text }. */
async function makeSubject(name) {
  const ops = {};
  const check = {};
  const readBody = name.endsWith('-read');
  if (readBody) name = name.slice(0, -'-read'.length);
  const fetchSubject = (fetchFn) => {
    for (const rn of ROUTE_NAMES) {
      const mk = requestFactory(ROUTES[rn]);
      ops[rn] = readBody ? async () => (await fetchFn(mk())).text() : () => fetchFn(mk());
      check[rn] = async () => {
        const res = await fetchFn(mk());
        return { status: res.status, text: await res.text() };
      };
    }
  };
  let m;
  if (name === 'irms') {
    const { makeApp } = await import('../servers/irms-app.mjs');
    fetchSubject(makeApp('prod').fetch);
  } else if (name === 'hono') {
    const { app } = await import('../servers/hono-app.mjs');
    fetchSubject(app.fetch);
  } else if (name === 'plain') {
    const { handler } = await import('../servers/plain-handler.mjs');
    fetchSubject(handler);
  } else if (name === 'floor') {
    const { floorHandler } = await import('../servers/floor-handler.mjs');
    fetchSubject(floorHandler);
  } else if (name === 'irms-handle') {
    const { makeApp } = await import('../servers/irms-app.mjs');
    const app = makeApp('prod');
    for (const rn of ROUTE_NAMES) {
      const mk = sourceFactory(ROUTES[rn]);
      ops[rn] = async () => {
        const h = await app.handle(mk());
        h.terminate?.();
        return h.response;
      };
      check[rn] = async () => {
        const h = await app.handle(mk());
        h.terminate?.();
        const b = h.response.body;
        return { status: h.response.status, text: typeof b === 'string' ? b : b instanceof Uint8Array ? new TextDecoder().decode(b) : undefined };
      };
    }
  } else if ((m = name.match(/^(irms|hono)-scale-(\d+)$/))) {
    const n = Number(m[2]);
    const urls = scaledRoutes(n);
    let fetchFn;
    if (m[1] === 'irms') {
      const { createApp, HttpResponse } = await import('../../dist/index.js');
      const routes = [];
      for (let i = 0; i < n; i++) {
        routes.push({ name: `r${i}`, path: `/r${i}/items/:id`, methods: ['GET'], controller: (req) => HttpResponse.json({ r: i, id: req.attributes.get('id') }) });
      }
      fetchFn = createApp({ env: 'prod', debug: false, logLevel: 'warning', routes }).fetch;
    } else {
      const { Hono } = await import('hono');
      const app = new Hono();
      for (let i = 0; i < n; i++) app.get(`/r${i}/items/:id`, (c) => c.json({ r: i, id: c.req.param('id') }));
      fetchFn = app.fetch;
    }
    const reqs = urls.map((u) => () => new Request(`${base}/r${u.i}/items/${u.id}`));
    let k = 0;
    ops.spread = () => fetchFn(reqs[k++ % reqs.length]());
    check.spread = async () => {
      const bad = [];
      for (const u of urls) {
        const res = await fetchFn(new Request(`${base}/r${u.i}/items/${u.id}`));
        const t = await res.text();
        if (res.status !== 200 || t !== JSON.stringify({ r: u.i, id: u.id })) bad.push(`${u.i}:${res.status} ${t.slice(0, 60)}`);
      }
      return bad.length ? { status: 0, text: bad.slice(0, 3).join('; ') } : { status: 200, expectedOk: true };
    };
  } else {
    throw new Error(`unknown subject ${name}`);
  }
  return { ops, check };
}

function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function validate(subject) {
  const problems = [];
  for (const rn of Object.keys(subject.check)) {
    try {
      const got = await subject.check[rn]();
      if (got.expectedOk) continue;
      const want = ROUTES[rn];
      if (!want) {
        problems.push(`${rn}: ${got.text}`);
        continue;
      }
      if (got.status !== want.status) problems.push(`${rn}: status ${got.status} (${String(got.text).slice(0, 100)})`);
      else if (want.text !== undefined && got.text !== undefined && got.text !== want.text) problems.push(`${rn}: body ${JSON.stringify(got.text).slice(0, 80)}`);
      else if (want.json !== undefined && got.text !== undefined) {
        let p;
        try {
          p = JSON.parse(got.text);
        } catch {}
        if (!sameJson(p, want.json)) problems.push(`${rn}: body ${String(got.text).slice(0, 100)}`);
      }
    } catch (e) {
      problems.push(`${rn}: ${e?.message ?? e}`);
    }
  }
  return problems;
}

// CPU time of this process (user + system, all threads, µs): Node's process.cpuUsage, also on Deno (node:process).
let cpuUsage = null;
async function loadCpuUsage() {
  try {
    const proc = (await import('node:process')).default;
    cpuUsage = () => {
      const u = proc.cpuUsage();
      return u.user + u.system;
    };
  } catch {
    cpuUsage = null;
  }
}

/** Runs `op` for about `ms` of wall time; returns { wall: ops per wall second, cpu: ops per CPU second }. */
async function timed(op, ms) {
  let n = 0;
  const c0 = cpuUsage ? cpuUsage() : 0;
  const t0 = performance.now();
  let t;
  for (;;) {
    for (let i = 0; i < 64; i++) await op();
    n += 64;
    t = performance.now() - t0;
    if (t >= ms) break;
  }
  const cpuUs = cpuUsage ? cpuUsage() - c0 : NaN;
  return { wall: (n * 1000) / t, cpu: (n * 1e6) / cpuUs };
}

/** Worker: one subject, prints one JSON line { subject, problems, runs: { route: [ops/s ...] } }. */
export async function worker(name) {
  await loadCpuUsage();
  const subject = await makeSubject(name);
  const problems = await validate(subject);
  const names = Object.keys(subject.ops);
  const warmEach = Math.max(CFG.warmMs, CFG.warmTotalMs / names.length);
  for (const rn of names) await timed(subject.ops[rn], warmEach);
  const runs = Object.fromEntries(names.map((rn) => [rn, []]));
  const wallRuns = Object.fromEntries(names.map((rn) => [rn, []]));
  for (let r = 0; r < CFG.runs; r++) {
    for (const rn of names) {
      const x = await timed(subject.ops[rn], CFG.runMs);
      runs[rn].push(CFG.metric === 'wall' || !Number.isFinite(x.cpu) ? x.wall : x.cpu);
      wallRuns[rn].push(x.wall);
    }
  }
  const mem = isDeno ? Deno.memoryUsage() : process.memoryUsage();
  console.log(JSON.stringify({ subject: name, problems, runs, wallRuns, rss: mem.rss }));
}

// ---------------------------------------------------------------------------------------------- orchestrator

function summarize(raw) {
  const out = {};
  for (const [subject, passes] of Object.entries(raw)) {
    const s = { problems: [...new Set(passes.flatMap((p) => p.problems))], routes: {} };
    const routes = Object.keys(passes[0]?.runs ?? {});
    for (const rn of routes) {
      const xs = passes.flatMap((p) => p.runs[rn]);
      const ws = passes.flatMap((p) => p.wallRuns?.[rn] ?? []);
      s.routes[rn] = { opsPerSec: median(xs), min: min(xs), max: max(xs), usPerOp: 1e6 / median(xs), wallOpsPerSec: median(ws), samples: xs.length };
    }
    s.geomeanOpsPerSec = geomean(routes.map((rn) => s.routes[rn].opsPerSec));
    out[subject] = s;
  }
  return out;
}

function ratio(sum, a, b) {
  if (!sum[a] || !sum[b]) return null;
  const r = {};
  for (const rn of ROUTE_NAMES) r[rn] = sum[a].routes[rn]?.opsPerSec / sum[b].routes[rn]?.opsPerSec;
  r.geomean = geomean(ROUTE_NAMES.map((rn) => r[rn]));
  return r;
}

function markdown(res) {
  const lines = [];
  const rt = res.runtime;
  const unit = res.config.metric === 'wall' ? 'ops per wall-clock second' : 'ops per CPU-second of the worker process';
  lines.push(`#### ${rt}: ${unit}, median (min–max) over ${res.config.passes} processes × ${res.config.runs} runs of ${res.config.runMs} ms\n`);
  const subs = Object.keys(res.subjects);
  lines.push(
    mdTable(['handler', ...ROUTE_NAMES, 'geo-mean'], subs.map((s) => {
      const x = res.subjects[s];
      return [s + (x.problems.length ? ' (!)' : ''), ...ROUTE_NAMES.map((rn) => (x.routes[rn] ? `${fmtInt(x.routes[rn].opsPerSec)} (${fmtInt(x.routes[rn].min)}–${fmtInt(x.routes[rn].max)})` : '–')), fmtInt(x.geomeanOpsPerSec)];
    })),
  );
  const rows = [];
  for (const [label, r] of [['irms ÷ hono', res.comparison.irmsToHono], ['irms ÷ plain', res.comparison.irmsToPlain], ['hono ÷ plain', res.comparison.honoToPlain], ['floor ÷ hono (irms-web\'s answers, no kernel)', res.comparison.floorToHono], ['irms ÷ floor', res.comparison.irmsToFloor], ['irms-handle ÷ irms', res.comparison.handleToFetch], ['irms-read ÷ hono-read (body read)', res.comparison.irmsToHonoRead], ['irms-read ÷ plain-read (body read)', res.comparison.irmsToPlainRead]]) {
    if (r) rows.push([label, ...ROUTE_NAMES.map((rn) => fmt(r[rn])), `**${fmt(r.geomean)}**`]);
  }
  lines.push(`\n#### ${rt}: ratios of median ops/s\n`);
  lines.push(mdTable(['ratio', ...ROUTE_NAMES, 'geo-mean'], rows));
  const bad = subs.filter((s) => res.subjects[s].problems.length);
  if (bad.length) lines.push('\n(!) failed checks: ' + bad.map((s) => `${s}: ${res.subjects[s].problems.join('; ')}`).join(' — '));
  if (res.scaling) {
    lines.push(`\n#### ${rt}: route-table scaling — ${res.config.metric === 'wall' ? 'wall' : 'CPU'} time per request (median) with N routes \`/r{i}/items/:id\`, requests spread over the table\n`);
    const srows = [];
    for (const fw of ['irms', 'hono']) {
      const sc = res.scaling[fw];
      if (!sc) continue;
      srows.push([fw, ...SCALE_SIZES.map((n) => (sc[n] ? `${fmt(sc[n].usPerReq, 2)} µs` : '–')), `**${fmt(sc.ratio1000to10)}**`]);
    }
    lines.push(mdTable(['framework', ...SCALE_SIZES.map((n) => `${n} routes`), '1,000 ÷ 10'], srows));
    const sbad = Object.entries(res.scaleSubjects).filter(([, x]) => x.problems.length);
    if (sbad.length) lines.push('\n(!) failed checks: ' + sbad.map(([s, x]) => `${s}: ${x.problems.join('; ')}`).join(' — '));
  }
  return lines.join('\n');
}

/**
 * Orchestrator. `spawnWorker(subject)` runs one pinned worker process and resolves to its stdout.
 * Writes the JSON summary to `jsonPath` (if any) and prints the markdown tables.
 */
export async function orchestrate({ runtime, spawnWorker, writeFile, jsonPath, haveIrms, subjects = MAIN_SUBJECTS, scaling = true }) {
  const t0 = Date.now();
  let main = subjects;
  let scale = scaling ? SCALE_SUBJECTS : [];
  if (!haveIrms) {
    console.log('! dist/index.js missing: irms-web subjects skipped (run node build.mjs)');
    main = main.filter((s) => !s.startsWith('irms') && s !== 'floor');
    scale = scale.filter((s) => !s.startsWith('irms'));
  }
  const runSet = async (list) => {
    const raw = Object.fromEntries(list.map((s) => [s, []]));
    for (let pass = 0; pass < CFG.passes; pass++) {
      const order = list.map((_, i) => list[(i + pass) % list.length]);
      for (const s of order) {
        let line;
        try {
          const out = await spawnWorker(s);
          line = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
          const r = JSON.parse(line);
          raw[s].push(r);
          const summary = Object.entries(r.runs).map(([rn, xs]) => `${rn} ${fmtInt(median(xs))}`).join('  ');
          console.log(`pass ${pass + 1}/${CFG.passes} ${s.padEnd(16)} ${summary}${r.problems.length ? '  ! ' + r.problems.join('; ') : ''}`);
        } catch (e) {
          console.log(`! ${s}: ${e?.message ?? e}`.slice(0, 2000));
          delete raw[s];
          list = list.filter((x) => x !== s);
          break;
        }
      }
    }
    return raw;
  };
  const subjectsSum = summarize(await runSet(main));
  const res = {
    runtime,
    config: { ...CFG },
    subjects: subjectsSum,
    comparison: {
      irmsToHono: ratio(subjectsSum, 'irms', 'hono'),
      irmsToPlain: ratio(subjectsSum, 'irms', 'plain'),
      honoToPlain: ratio(subjectsSum, 'hono', 'plain'),
      floorToHono: ratio(subjectsSum, 'floor', 'hono'),
      irmsToFloor: ratio(subjectsSum, 'irms', 'floor'),
      handleToFetch: ratio(subjectsSum, 'irms-handle', 'irms'),
      irmsToHonoRead: ratio(subjectsSum, 'irms-read', 'hono-read'),
      irmsToPlainRead: ratio(subjectsSum, 'irms-read', 'plain-read'),
    },
  };
  if (scale.length) {
    const ss = summarize(await runSet(scale));
    res.scaleSubjects = ss;
    res.scaling = {};
    for (const fw of ['irms', 'hono']) {
      const sc = {};
      for (const n of SCALE_SIZES) {
        const x = ss[`${fw}-scale-${n}`];
        if (x) sc[n] = { opsPerSec: x.routes.spread.opsPerSec, usPerReq: x.routes.spread.usPerOp };
      }
      if (sc[10] && sc[1000]) sc.ratio1000to10 = sc[1000].usPerReq / sc[10].usPerReq;
      if (Object.keys(sc).length) res.scaling[fw] = sc;
    }
  }
  res.markdown = markdown(res);
  res.elapsedSeconds = Math.round((Date.now() - t0) / 1000);
  console.log('\n' + res.markdown);
  if (jsonPath) await writeFile(jsonPath, JSON.stringify(res, null, 2) + '\n');
  return res;
}

export function parseArgs(argv) {
  const a = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--worker') a.worker = argv[++i];
    else if (argv[i] === '--json') a.json = argv[++i];
    else if (argv[i] === '--subjects') a.subjects = argv[++i].split(',');
    else if (argv[i] === '--no-scaling') a.noScaling = true;
  }
  return a;
}

export { CFG };
