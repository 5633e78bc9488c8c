#!/usr/bin/env node
// In-process benchmark on Node: irms-web `app.fetch` vs Hono's `app.fetch` (and a plain fetch handler),
// plus route-table scaling (10 / 100 / 1,000 routes). No network. See bench/lib/inproc.mjs for the method.
//   node bench/inprocess.mjs [--json out.json] [--subjects irms,hono] [--no-scaling]
//   env: BENCH_QUICK=1, INPROC_PASSES, INPROC_RUNS, INPROC_RUN_MS, INPROC_WARM_MS, BENCH_SERVER_CPU
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { worker, orchestrate, parseArgs, CFG, MAIN_SUBJECTS } from './lib/inproc.mjs';

const here = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(here), '..');
const args = parseArgs(process.argv.slice(2));

const LOG_DIR = path.join(ROOT, 'bench/results/logs');

// A worker's stderr goes to a file (irms-web logs each 404 at ERROR level; no reader on the hot path).
function spawnWorker(subject) {
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `inproc-node-${subject}.stderr.log`);
  const fd = openSync(logFile, 'w');
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', CFG.cpu, process.execPath, here, '--worker', subject], { cwd: ROOT, stdio: ['ignore', 'pipe', fd] });
    closeSync(fd);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`worker ${subject} exited ${code}: ${readFileSync(logFile, 'utf8').slice(-1500)}`))));
  });
}

if (args.worker) {
  await worker(args.worker);
} else {
  await orchestrate({
    runtime: `node ${process.version}`,
    spawnWorker,
    writeFile,
    jsonPath: args.json,
    haveIrms: existsSync(path.join(ROOT, 'dist/index.js')),
    subjects: args.subjects ?? MAIN_SUBJECTS,
    scaling: !args.noScaling,
  });
}
