// Start-up failures of the entries name the setting at fault (HOST, PORT), on Node and on Deno.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const root = fileURLToPath(new URL('../../', import.meta.url));
const deno = fileURLToPath(new URL('../../node_modules/.bin/deno', import.meta.url));

function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(command, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'error', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('a listen failure (a port in use) stops the start with one line naming HOST and PORT, no stack trace (Node and Deno); an invalid HOST is refused before listening', { timeout: 60_000 }, async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = String((blocker.address() as { port: number }).port);
  try {
    const entries: [string, string[]][] = [
      [process.execPath, ['--import', 'tsx', 'src/runtime/server.ts']],
      [deno, ['run', '--allow-net', '--allow-env', '--allow-read', '--no-lock', 'src/runtime/deno.ts']],
    ];
    for (const [command, args] of entries) {
      const { code, stderr } = await run(command, args, { HOST: '127.0.0.1', PORT: port });
      assert.equal(code, 1, stderr);
      assert.match(stderr, new RegExp(`^irms-web: cannot listen on HOST=127\\.0\\.0\\.1 PORT=${port}: `), stderr);
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
    }
    const invalid = await run(process.execPath, ['--import', 'tsx', 'src/runtime/server.ts'], { HOST: 'not a host', PORT: '0' });
    assert.equal(invalid.code, 1);
    assert.equal(invalid.stderr, 'irms-web: HOST must be a host name or an IP address, got "not a host".\n');
  } finally {
    blocker.close();
  }
});
