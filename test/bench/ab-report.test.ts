// bench/run.mjs with BENCH_BASE: each irms-web server is reported against its twin built from the base commit,
// so a change that slows one route on one runtime shows in that route's cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error: a plain .mjs module without declarations
import { summarizeHttp, httpTables } from '../../bench/run.mjs';

const ROUTES = ['root', 'user', '404', 'echo'];

/** One measurement as the harness records it: req/s and server CPU per request. */
function cell(server: string, route: string, round: number, rps: number) {
  return { server, route, round, rps, procUsPerReq: 1e6 / rps, cpuUsPerReq: 1e6 / rps, p99: 1, p50: 0.5, errors: 0, unexpectedNon2xx: 0 };
}

test('an A/B run reports each route against the base build, paired by round, in req/s and in CPU cost', () => {
  const raw = [];
  for (let round = 0; round < 3; round++) {
    const drift = 1 + round * 0.05; // the host drifts between rounds; pairing by round cancels it
    for (const route of ROUTES) {
      raw.push(cell('irms-deno', route, round, 40_000 * drift));
      raw.push(cell('irms-deno@base', route, round, (route === 'echo' ? 48_000 : 40_000) * drift));
    }
  }
  const http = summarizeHttp(raw, [{ name: 'irms-deno' }, { name: 'irms-deno@base' }], {}, 'abc1234');
  assert.equal(http.base, 'abc1234');
  const { paired, cost } = http.toBase['irms-deno'];
  assert.equal(paired.root.toFixed(3), '1.000');
  assert.equal(paired.echo.toFixed(3), (40 / 48).toFixed(3), 'the slower route shows');
  assert.equal(cost.echo.toFixed(3), (40 / 48).toFixed(3), 'and costs more CPU per request');
  assert.equal(http.toBase['irms-deno@base'], undefined, 'the twin is not compared with itself');

  const table = httpTables(http);
  assert.match(table, /Against the base build \(BENCH_BASE=abc1234\)/);
  assert.match(table, /\| irms-deno: req\/s \| 1\.000 \| 1\.000 \| 1\.000 \| 0\.833 \|/);
  assert.match(table, /\| irms-deno: CPU cost \| 1\.000 \| 1\.000 \| 1\.000 \| 0\.833 \|/);
});

test('a run without a base has no A/B table', () => {
  const raw = ROUTES.map((route) => cell('irms-prod', route, 0, 30_000));
  const http = summarizeHttp(raw, [{ name: 'irms-prod' }], {}, undefined);
  assert.equal(http.toBase, undefined);
  assert.doesNotMatch(httpTables(http), /Against the base build/);
});
