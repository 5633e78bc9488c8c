// serve() (src/runtime/node/serve.ts): what it checks of its options and what it logs at start.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp } from '../../../src/index.ts';
import { serve, type ServeOptions } from '../../../src/runtime/node.ts';
import { get, stubApp } from '../../support/node-host.ts';

/** An app embedded as the README shows it, its log lines kept. */
function loggedApp(env: 'dev' | 'prod') {
  const lines: string[] = [];
  const app = createApp({ env, environment: {}, logLevel: 'warning', logSink: (line) => void lines.push(line) });
  return { app, lines };
}

describe('serve(): the debug-on-a-public-address WARNING', { timeout: 10_000 }, () => {
  test('regression: serve() of a debug app on a non-loopback address logged no WARNING (only dist/server.js did)', async () => {
    const { app, lines } = loggedApp('dev');
    const server = await serve(app, { hostname: '0.0.0.0', port: 0, handleSignals: false });
    try {
      const warnings = lines.filter((line) => line.includes('app.WARNING: Debug mode is on and HOST=0.0.0.0 is not a loopback address'));
      assert.equal(warnings.length, 1, lines.join('\n'));
      assert.equal((await get(server.port, '/nothing')).status, 404, 'it serves all the same');
    } finally {
      await server.close();
    }
  });

  test('no WARNING on a loopback address, nor with debug off', async () => {
    for (const [env, hostname] of [['dev', '127.0.0.1'], ['dev', '::1'], ['prod', '0.0.0.0']] as const) {
      const { app, lines } = loggedApp(env);
      const server = await serve(app, { hostname, port: 0, handleSignals: false });
      await server.close();
      assert.deepEqual(lines.filter((line) => line.includes('WARNING')), [], `${env} on ${hostname}`);
    }
  });
});

describe('serve(): options', { timeout: 10_000 }, () => {
  const app = stubApp(() => ({ status: 204, body: null, headers: new Headers() })).app;
  const refused = (options: unknown, message: string) =>
    assert.rejects(serve(app, options as ServeOptions), (error: unknown) => error instanceof TypeError && error.message === message, JSON.stringify(options));

  test('regression: unknown serve() options were ignored: { host: "0.0.0.0" } listened on 127.0.0.1 without a word', async () => {
    await refused({ host: '0.0.0.0', port: 0 }, 'Unknown serve option "host" (did you mean "hostname"?).');
    await refused({ prot: 1, port: 0 }, 'Unknown serve option "prot" (did you mean "port"?).');
    await refused({ HOSTNAME: '127.0.0.1' }, 'Unknown serve option "HOSTNAME" (did you mean "hostname"?).');
    await refused({ headersTimeoutMs: 5000 }, 'Unknown serve option "headersTimeoutMs" (did you mean "headersTimeout"?).');
  });

  test('regression: an unknown serve() option with no near name ("timeout") was refused without the names serve() takes', async () => {
    await assert.rejects(serve(app, { timeout: 5000 } as ServeOptions), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /^Unknown serve option "timeout"; it takes "port", "hostname", .*"sendTimeout"/);
      return true;
    });
  });

  test('regression: a port given as a string and flags that are not booleans were accepted ({ batch: "no" } batched)', async () => {
    await refused({ port: '0' }, 'The serve option "port" must be an integer between 0 and 65535, got "0".');
    await refused({ port: 70000 }, 'The serve option "port" must be an integer between 0 and 65535, got 70000.');
    await refused({ port: 1.5 }, 'The serve option "port" must be an integer between 0 and 65535, got 1.5.');
    await refused({ port: 0, batch: 'no' }, 'The serve option "batch" must be true or false, got "no".');
    await refused({ port: 0, handleSignals: 0 }, 'The serve option "handleSignals" must be true or false, got 0.');
    await refused({ port: 0, hostname: ['127.0.0.1'] }, 'The serve option "hostname" must be a string, got an array.');
    await refused(null, 'serve() expects an options object, got null.');
  });

  test('regression: serve() with hostname "" listened on every interface (::), where an empty HOST means 127.0.0.1 and createApp refuses host ""', async () => {
    await refused({ port: 0, hostname: '' }, 'The serve option "hostname" must be a host name or an IP address, got "".');
  });

  test('options given as undefined count as not given', async () => {
    const server = await serve(app, { port: 0, hostname: undefined, batch: undefined, handleSignals: false });
    try {
      assert.equal(server.hostname, '127.0.0.1');
      assert.equal((await get(server.port, '/')).status, 204);
    } finally {
      await server.close();
    }
  });
});
