import { spawn, type ChildProcess } from 'node:child_process';

/** A Deno fixture server (bundle imported from dist/) that prints `READY <port>` once it listens. */
export interface DenoFixture {
  readonly port: number;
  readonly child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr. */
  output(): string;
  /** How the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface DenoFixtureOptions {
  /** Added to the environment. */
  env?: Record<string, string>;
  /** The line that says the server listens, its port in the first group (default `READY <port>`). */
  ready?: RegExp;
  /** `ulimit -n` for the process (its file descriptors). */
  fileLimit?: number;
}

const DENO_ARGS = ['run', '--allow-net', '--allow-env', '--allow-read', '--no-prompt'];

/** Starts `deno run` on a fixture script (with the bundle's permissions) and waits for its READY line. */
export async function startDenoFixture(script: string, options: DenoFixtureOptions = {}): Promise<DenoFixture> {
  const env = { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', ...options.env };
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
  // Through `sh` only to set the limit: `exec` keeps the pid, so the child is Deno itself.
  const child = options.fileLimit === undefined
    ? spawn('node_modules/.bin/deno', [...DENO_ARGS, script], { env, stdio })
    : spawn('sh', ['-c', `ulimit -n ${options.fileLimit} && exec node_modules/.bin/deno ${DENO_ARGS.join(' ')} "$0"`, script], { env, stdio });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let output = '';
  const ready = options.ready ?? /READY (\d+)/;
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = ready.exec(output);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`deno exited early (${code}):\n${output}`)));
  });
  return { port, child, output: () => output, exited };
}

/** `dist/deno.js` on a free loopback port (PORT=0), started with `env`; ready at its "listening on" line. */
export function startDenoEntry(env: Record<string, string> = {}, options: Omit<DenoFixtureOptions, 'env' | 'ready'> = {}): Promise<DenoFixture> {
  return startDenoFixture('dist/deno.js', {
    ...options,
    env: { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'error', ...env },
    ready: /listening on http:\/\/[^\s]+:(\d+)/,
  });
}
