// What app.fetch reads from a host's second argument (src/http/source.ts, fetchSource).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ConnectionInfo } from '../../src/index.ts';
import { get, within } from '../support/node-host.ts';
import { peerApp } from './fixtures/default-export.ts';

/** What `peerApp` answers to GET `url` with `second` beside the Request, as a host passes it to app.fetch. */
async function answer(second: unknown, url: string): Promise<{ ip: string; protocol: string; uri: string }> {
  const response = await peerApp().fetch(new Request(url), second as ConnectionInfo);
  return (await response.json()) as { ip: string; protocol: string; uri: string };
}

/** Shaped as Bun 1.4's Server, which `bun run` passes to a default export's fetch: a class instance. */
class BunLikeServer {
  readonly protocol = 'http';
  readonly hostname = 'localhost';
  readonly port = 3000;
  requestIP() {
    return { address: '198.51.100.4', family: 'IPv4', port: 50000 };
  }
}

/** Shaped as Deno 2's ServeHandlerInfo, which `deno serve` passes: `remoteAddr` a getter on the prototype. */
class DenoLikeInfo {
  get remoteAddr() {
    return { transport: 'tcp', hostname: '203.0.113.9', port: 50000 };
  }
}

test("regression: Bun's Server, passed to `export default { fetch: app.fetch }`, was read as connection info (the request's protocol became \"http\")", async () => {
  assert.deepEqual(await answer(new BunLikeServer(), 'http://localhost:3000/peer'), { ip: '', protocol: 'HTTP/1.1', uri: 'http://localhost:3000/peer' });
});

test("regression: Deno's handler info, passed to `export default { fetch: app.fetch }` by `deno serve`, gave no client address", async () => {
  assert.equal((await answer(new DenoLikeInfo(), 'http://127.0.0.1:8000/peer')).ip, '203.0.113.9');
  // An object literal of the same shape (a test's, a wrapper's) is read the same way.
  assert.equal((await answer({ remoteAddr: { hostname: '203.0.113.10' } }, 'http://127.0.0.1:8000/peer')).ip, '203.0.113.10');
});

test('an object literal is connection info; other objects and non-objects are ignored', async () => {
  assert.deepEqual(await answer({ remoteAddress: '192.0.2.1', protocol: 'HTTP/1.0', rawTarget: '/peer?from=raw' }, 'http://h.test/peer'), { ip: '192.0.2.1', protocol: 'HTTP/1.0', uri: 'http://h.test/peer?from=raw' });
  assert.deepEqual(await answer(Object.assign(Object.create(null), { remoteAddress: '192.0.2.2' }), 'http://h.test/peer'), { ip: '192.0.2.2', protocol: 'HTTP/1.1', uri: 'http://h.test/peer' });
  for (const second of [undefined, null, 'info', 7, new Map([['remoteAddress', '192.0.2.3']])]) {
    assert.deepEqual(await answer(second, 'http://h.test/peer'), { ip: '', protocol: 'HTTP/1.1', uri: 'http://h.test/peer' }, String(second));
  }
});

/**
 * The README's bare form on the real hosts: test/http/fixtures/default-export.ts is served by
 * `deno serve` and by `bun run`, each printing the address it listens on.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = 'test/http/fixtures/default-export.ts';

async function startHost(command: string, args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /http:\/\/[^\s/]+:(\d+)/.exec(output);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited early (${code}):\n${output}`)));
  });
  try {
    return { child, port: await within(port, 20_000, `${command} to listen`) };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

test('regression: `export default { fetch: app.fetch }` on `deno serve` gave an empty client IP; on Bun, the protocol "http"', { timeout: 60_000 }, async () => {
  const deno = await startHost('node_modules/.bin/deno', ['serve', '--no-lock', '--no-prompt', '--allow-net', '--host', '127.0.0.1', '--port', '0', fixture], {});
  try {
    const res = await get(deno.port, '/peer');
    assert.deepEqual(JSON.parse(res.body), { ip: '127.0.0.1', protocol: 'HTTP/1.1', uri: `http://127.0.0.1:${deno.port}/peer` });
  } finally {
    deno.child.kill('SIGKILL');
  }
  // Bun passes its Server: ignored, so the bare form is harmless there (the peer address needs the
  // README's "Embedding on Bun" form).
  const bun = await startHost('node_modules/.bin/bun', ['run', fixture], { PORT: '0', HOSTNAME: '127.0.0.1' });
  try {
    const res = await get(bun.port, '/peer');
    assert.deepEqual(JSON.parse(res.body), { ip: '', protocol: 'HTTP/1.1', uri: `http://127.0.0.1:${bun.port}/peer` });
  } finally {
    bun.child.kill('SIGKILL');
  }
});
