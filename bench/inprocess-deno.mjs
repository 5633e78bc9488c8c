// In-process benchmark on Deno: irms-web `app.fetch` vs Hono's `app.fetch` (and a plain fetch handler),
// plus route-table scaling. The same code as bench/inprocess.mjs (bench/lib/inproc.mjs), on Deno.
//   npx deno run -A bench/inprocess-deno.mjs [--json out.json] [--subjects irms,hono] [--no-scaling]
import { worker, orchestrate, parseArgs, CFG, MAIN_SUBJECTS } from './lib/inproc.mjs';

const here = new URL(import.meta.url).pathname;
const ROOT = new URL('..', import.meta.url).pathname;
const args = parseArgs(Deno.args);

// A worker's stderr goes to a file (irms-web logs each 404 at ERROR level; no reader on the hot path).
async function spawnWorker(subject) {
  const logDir = ROOT + 'bench/results/logs';
  Deno.mkdirSync(logDir, { recursive: true });
  const logFile = `${logDir}/inproc-deno-${subject}.stderr.log`;
  const cmd = new Deno.Command('sh', {
    args: ['-c', 'exec "$@" 2>"$BENCH_LOG_FILE"', 'sh', 'taskset', '-c', CFG.cpu, Deno.execPath(), 'run', '-A', '--no-lock', here, '--worker', subject],
    cwd: ROOT,
    env: { BENCH_LOG_FILE: logFile },
    stdout: 'piped',
    stderr: 'inherit',
  });
  const { code, stdout } = await cmd.output();
  if (code !== 0) throw new Error(`worker ${subject} exited ${code}: ${Deno.readTextFileSync(logFile).slice(-1500)}`);
  return new TextDecoder().decode(stdout);
}

function haveIrms() {
  try {
    Deno.statSync(new URL('../dist/index.js', import.meta.url));
    return true;
  } catch {
    return false;
  }
}

if (args.worker) {
  await worker(args.worker);
} else {
  await orchestrate({
    runtime: `deno ${Deno.version.deno}`,
    spawnWorker,
    writeFile: (p, s) => Deno.writeTextFile(p, s),
    jsonPath: args.json,
    haveIrms: haveIrms(),
    // irms-handle (the kernel without Fetch objects) is the Node adapter's path, not Deno's: on request only
    subjects: args.subjects ?? MAIN_SUBJECTS.filter((s) => s !== 'irms-handle'),
    scaling: !args.noScaling,
  });
}
