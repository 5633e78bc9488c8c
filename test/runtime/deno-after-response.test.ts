// What a request still answers on Deno once its response is out: Deno 2.9 closes every request when
// its response is sent, and its handler info then throws `TypeError: Request closed` for the peer
// address. The unit part hands denoServeHandler an info that closes as Deno's does (it runs on Node);
// the last test runs a real Deno server on the sources.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { denoServeHandler } from '../../src/runtime/deno-batch.ts';
import { createApp, HttpResponse, listener } from '../../src/index.ts';
import { startDenoFixture } from '../support/deno-fixture.ts';
import { rawHttp } from '../support/raw-http.ts';

/** Deno's ServeHandlerInfo as it behaves: the peer address until the request is closed, then a TypeError. */
class ClosingInfo {
  closed = false;
  get remoteAddr(): { hostname: string } {
    if (this.closed) throw new TypeError('Request closed');
    return { hostname: '198.51.100.7' };
  }
}

/** An app whose kernel.terminate listener records the client address it reads. */
function recordingApp() {
  const seen: string[] = [];
  const record = listener<'kernel.terminate'>('Test::record', 'record the client address after the response', (event) => {
    try {
      seen.push(`ip=${event.request.getClientIp()}`);
    } catch (error) {
      seen.push(`failed: ${String(error)}`);
    }
  });
  const app = createApp({
    env: 'prod',
    environment: {},
    logSink: () => {},
    listeners: [{ hook: 'kernel.terminate', listener: record }],
    routes: [
      { name: 'page', path: '/page', controller: () => HttpResponse.text('page') },
      { name: 'later', path: '/later', controller: async () => HttpResponse.text(await Promise.resolve('later')) },
    ],
  });
  return { app, seen };
}

/** Lets the kernel.terminate the app scheduled after the response run. */
const terminateRan = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('deno adapter: the request after its response', { timeout: 60_000 }, () => {
  test('regression: on Deno a kernel.terminate listener asking for the client IP got "TypeError: Request closed" (Node answers it)', async () => {
    for (const batch of [true, false]) {
      for (const path of ['/page', '/later']) {
        const { app, seen } = recordingApp();
        const info = new ClosingInfo();
        const response = await denoServeHandler(app, { batch })(new Request(`http://localhost${path}`), info);
        // Deno sends the response, then closes the request: kernel.terminate runs after that.
        info.closed = true;
        assert.equal(response.status, 200);
        await terminateRan();
        assert.deepEqual(seen, ['ip=198.51.100.7'], `${path}, batch ${batch}`);
      }
    }
  });

  test('an app without kernel.terminate listeners still asks Deno for the peer address only when read', async () => {
    let asked = 0;
    const info = {
      get remoteAddr() {
        asked++;
        return { hostname: '198.51.100.8' };
      },
    };
    const app = createApp({ env: 'prod', environment: {}, logSink: () => {}, routes: [{ name: 'page', path: '/page', controller: () => HttpResponse.text('page') }] });
    const response = await denoServeHandler(app, { batch: false })(new Request('http://localhost/page'), info);
    assert.equal(await response.text(), 'page');
    assert.equal(asked, 0);
  });

  describe('on a real Deno server', () => {
    let child: ChildProcess | undefined;
    after(() => void child?.kill('SIGKILL'));

    test('regression: a kernel.terminate listener on Deno reads the client IP of a request already answered', async () => {
      const fixture = await startDenoFixture('test/runtime/fixtures/deno-terminate-server.ts');
      child = fixture.child;
      const host = `127.0.0.1:${fixture.port}`;
      for (let i = 0; i < 3; i++) {
        const page = await rawHttp(fixture.port, host, { method: 'GET', target: '/page', headers: { 'user-agent': `probe/${i}` } });
        assert.equal(page.body, 'page');
      }
      let seen = '';
      for (let tries = 0; tries < 50 && seen.split('\n').length < 3; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = (await rawHttp(fixture.port, host, { method: 'GET', target: '/seen' })).body;
      }
      assert.deepEqual(seen.split('\n'), ['ip=127.0.0.1 ua=probe/0', 'ip=127.0.0.1 ua=probe/1', 'ip=127.0.0.1 ua=probe/2'], fixture.output());
    });
  });
});
