import { spawn, type ChildProcess } from 'node:child_process';

/** A Deno fixture server (bundle imported from dist/) that prints `READY <port>` once it listens. */
export interface DenoFixture {
  readonly port: number;
  readonly child: ChildProcess;
}

/** Starts `deno run` on a fixture script (with the bundle's permissions) and waits for its READY line. */
export async function startDenoFixture(script: string): Promise<DenoFixture> {
  const child = spawn('node_modules/.bin/deno', ['run', '--allow-net', '--allow-env', '--allow-read', '--no-prompt', script], {
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /READY (\d+)/.exec(output);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`deno exited early (${code}):\n${output}`)));
  });
  return { port, child };
}
