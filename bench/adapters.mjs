// Node adapter comparison: the native adapter (RequestSource in, HttpResponse out) against
// @hono/node-server in front of app.fetch, with raw node:http as the ceiling. See docs/node-adapter.md.
//
//   node bench/adapters.mjs                  # 3 interleaved rounds × 5 s, wrk -t1 -c50
//   ROUNDS=5 DURATION=10 node bench/adapters.mjs
//
// The adapter source is bundled by esbuild first (as dist/ is), so the servers run plain JS with no
// loader hook. Each server is pinned with `taskset -c 0`, wrk with `taskset -c 1`. Server CPU per
// request comes from /proc/<pid>/stat (user + system time of the server process) over each run.
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Under node_modules so that the bundle's `import('@hono/node-server')` resolves.
const outDir = join(root, 'node_modules', '.cache', 'irms-bench');
const bundle = join(outDir, 'adapters-bundle.mjs');

// native/hono: the trivial app (the adapters alone). native-kernel/hono-kernel: createApp() in prod
// mode with one route GET / → 'ok' (the adapters in front of the real kernel; skipped when
// src/app/create-app.ts does not build). raw: node:http writing 'ok', the ceiling.
const ALL_SERVERS = ['native', 'hono', 'native-kernel', 'hono-kernel', 'raw'];
let SERVERS = ALL_SERVERS;


async function runServer(kind) {
  if (kind === 'raw') {
    const http = await import('node:http');
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-length': '2' });
      res.end('ok');
    });
    server.listen(0, '127.0.0.1', () => console.log(`PORT ${server.address().port}`));
    return;
  }
  const { serve, HttpResponse, createApp } = await import(bundle);
  const [adapter, variant] = kind.split('-');
  let app;
  if (variant === 'kernel') {
    app = createApp({
      env: 'prod',
      debug: false,
      logLevel: 'warning',
      routes: [{ name: 'home', path: '/', methods: ['GET'], controller: () => HttpResponse.text('ok') }],
    });
  } else {
    // The trivial app: the response is ready at once, terminate does nothing.
    const terminate = () => {};
    app = {
      config: { debug: false },
      handle: (source) => Promise.resolve({ response: new HttpResponse('ok'), terminate }),
      fetch: async (request) => new Response('ok'),
    };
  }
  const handle = await serve(app, { port: 0, hostname: '127.0.0.1', adapter, handleSignals: false });
  console.log(`PORT ${handle.port}`);
}

function startServer(kind) {
  const child = spawn('taskset', ['-c', '0', process.execPath, fileURLToPath(import.meta.url), '--serve', kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line);
      if (m) resolve({ kind, child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

function cpuTicks(pid) {
  // Fields 14 and 15 (utime, stime) of /proc/<pid>/stat, after the parenthesised command name.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The node process itself (taskset execs it, so the pid is the same). */
function wrk(port, seconds) {
  const out = execFileSync('taskset', ['-c', '1', 'wrk', '-t1', '-c50', `-d${seconds}s`, '--latency', `http://127.0.0.1:${port}/`], {
    encoding: 'utf8',
  });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : NaN;
  const errors = /Socket errors: (.*)/.exec(out)?.[1] ?? '';
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return { rps, total, p99ms, errors, non2xx };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const rounds = Number(process.env.ROUNDS ?? 3);
  const duration = Number(process.env.DURATION ?? 5);
  mkdirSync(outDir, { recursive: true });
  const { build } = await import('esbuild');
  const bundleWith = (contents) =>
    build({
      stdin: { contents, resolveDir: root, sourcefile: 'adapters-entry.ts', loader: 'ts' },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      target: 'node20',
      external: ['node:*'],
      outfile: bundle,
      logLevel: 'silent',
    });
  const base = "export { serve } from './src/runtime/node.ts';\nexport { HttpResponse } from './src/http/response.ts';\n";
  try {
    await bundleWith(base + "export { createApp } from './src/app/create-app.ts';\n");
  } catch (err) {
    console.error(`create-app.ts does not build, kernel rows skipped: ${err.message.split('\n')[0]}`);
    await bundleWith(base);
    SERVERS = ALL_SERVERS.filter((k) => !k.endsWith('-kernel'));
  }
  if (process.env.SERVERS) SERVERS = process.env.SERVERS.split(',');

  const clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const servers = [];
  for (const kind of SERVERS) servers.push(await startServer(kind));
  try {
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    if (Number(load) > 0.5) console.error(`note: load average ${load} before the run; other work on the host skews req/s (CPU µs/req much less)`);
    for (const s of servers) {
      const res = await fetch(`http://127.0.0.1:${s.port}/`);
      const text = await res.text();
      if (res.status !== 200 || text !== 'ok') throw new Error(`${s.kind}: ${res.status} ${text}`);
    }
    for (const s of servers) wrk(s.port, 2); // warm-up

    const results = Object.fromEntries(SERVERS.map((k) => [k, []]));
    for (let r = 0; r < rounds; r++) {
      const order = SERVERS.map((_, i) => servers[(i + r) % servers.length]);
      for (const s of order) {
        const before = cpuTicks(s.child.pid);
        const m = wrk(s.port, duration);
        const cpuSeconds = (cpuTicks(s.child.pid) - before) / clkTck;
        m.cpuUsPerReq = (cpuSeconds * 1e6) / m.total;
        m.round = r + 1;
        results[s.kind].push(m);
        console.error(`round ${r + 1} ${s.kind.padEnd(13)} ${m.rps.toFixed(0).padStart(7)} req/s  p99 ${m.p99ms.toFixed(2)} ms  ${m.cpuUsPerReq.toFixed(1)} µs CPU/req${m.errors ? '  errors ' + m.errors : ''}${m.non2xx ? '  non-2xx ' + m.non2xx : ''}`);
      }
    }

    const ceiling = results.raw ? median(results.raw.map((m) => m.rps)) : NaN;
    const lines = [
      `| server | median req/s | min–max req/s | × raw node:http | median server CPU µs/req | median p99 ms |`,
      `|---|---:|---:|---:|---:|---:|`,
    ];
    for (const kind of SERVERS) {
      const ms = results[kind];
      const rps = ms.map((m) => m.rps);
      const med = median(rps);
      lines.push(
        `| ${kind} | ${Math.round(med).toLocaleString('en-US')} | ${Math.round(Math.min(...rps)).toLocaleString('en-US')}–${Math.round(Math.max(...rps)).toLocaleString('en-US')} | ${(med / ceiling).toFixed(2)} | ${median(ms.map((m) => m.cpuUsPerReq)).toFixed(1)} | ${median(ms.map((m) => m.p99ms)).toFixed(2)} |`,
      );
    }
    console.log(`${new Date().toISOString()} node ${process.version}, ${rounds} rounds × ${duration} s, wrk -t1 -c50`);
    console.log(lines.join('\n'));
    console.log(JSON.stringify(results));
  } finally {
    for (const s of servers) s.child.kill('SIGKILL');
  }
}

if (process.argv[2] === '--serve') {
  await runServer(process.argv[3]);
} else {
  await main();
}
