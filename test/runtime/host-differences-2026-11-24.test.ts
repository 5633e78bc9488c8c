// Differences between the Node and Deno hosts found by the differential run of 2026-11-24: the same raw
// requests to `dist/deno.js` and to the app on the Node host, the answers compared.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDenoEntry, type DenoFixture } from '../support/deno-fixture.ts';
import { rawHttp, type RawRequest } from '../support/raw-http.ts';
import { serve, type NodeServer } from '../../src/runtime/node.ts';
import { createApp } from '../../src/index.ts';

let deno: DenoFixture | undefined;
let node: NodeServer | undefined;
after(async () => {
  deno?.child.kill('SIGKILL');
  await node?.close(100);
});

/** Both hosts in debug mode behind a trusted proxy on loopback, so X-Forwarded-Host is believed. */
async function hosts(): Promise<{ nodePort: number; denoPort: number }> {
  const env = { APP_ENV: 'dev', TRUSTED_PROXIES: '127.0.0.1', LOG_LEVEL: 'error' };
  deno ??= await startDenoEntry(env);
  node ??= await serve(createApp({ environment: env, logSink: () => {} }), { port: 0, hostname: '127.0.0.1', handleSignals: false });
  return { nodePort: node.port, denoPort: deno.port };
}

/** The route the kernel looked for, from the debug 404's X-Debug-Exception (or the status when it found one). */
function routed(response: { status: number; headers: Record<string, string> }): string {
  const exception = response.headers['x-debug-exception'];
  return exception === undefined ? `status ${response.status}` : decodeURIComponent(exception);
}

test('regression: on Deno a Host header holding "/" or "?" moved its tail into the request path', { timeout: 60_000 }, async () => {
  const { nodePort, denoPort } = await hosts();
  // Deno's request URL is `http://` + Host + target: `Host: h.test/_profiler` made `GET /search` the path
  // `/_profiler/search`, a route the client chose; Node (and Symfony) route the request line's target.
  const cases: Array<[RawRequest, string]> = [
    [{ method: 'GET', target: '/search', headers: { 'x-forwarded-host': 'h.test' } }, 'No route found for "GET http://h.test/search"'],
    [{ method: 'GET', target: '/foo?q=1', headers: { 'x-forwarded-host': 'h.test' } }, 'No route found for "GET http://h.test/foo"'],
  ];
  const hostHeaders = ['h.test/_profiler', 'h.test?x'];
  for (const [request, expected] of cases) {
    for (const host of hostHeaders) {
      const onNode = await rawHttp(nodePort, host, request);
      const onDeno = await rawHttp(denoPort, host, request);
      assert.equal(routed(onNode), expected, `Node, Host ${host}`);
      assert.equal(routed(onDeno), expected, `Deno, Host ${host}: the same route as Node`);
      assert.equal(onDeno.status, 404);
    }
  }
});
