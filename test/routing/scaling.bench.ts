/**
 * Router micro-benchmark (not a test): ns per match() for route tables of 10, 100 and 1,000 routes.
 *
 *   node --import tsx test/routing/scaling.bench.ts
 *
 * Each table is a mix of static and dynamic routes, some on distinct first segments, some under a
 * shared `/api/v1/` prefix. Requests are drawn evenly
 * over the whole table, per outcome: static hit, dynamic hit, 405, 404 (GET, so the trailing-slash retry
 * runs too) and trailing-slash redirect. Then the route shape of bench/inprocess.mjs's scaling run, and
 * every route behind a dynamic first segment (`/:tenant/res{i}/:id`, indexed through the trie's
 * `:param` edge).
 */
import { Router } from '../../src/routing/router.ts';
import type { RouteDefinition } from '../../src/routing/route.ts';

const controller = (): null => null;

function table(n: number): RouteDefinition[] {
  const routes: RouteDefinition[] = [];
  for (let i = 0; routes.length < n; i++) {
    switch (i % 5) {
      case 0: routes.push({ name: `page${i}`, path: `/page${i}`, methods: ['GET'], controller }); break;
      case 1: routes.push({ name: `item${i}`, path: `/items${i}/:id`, methods: ['GET'], requirements: { id: '\\d+' }, controller }); break;
      case 2: routes.push({ name: `res${i}`, path: `/api/v1/res${i}/:id`, methods: ['GET', 'POST'], controller }); break;
      case 3: routes.push({ name: `list${i}`, path: `/api/v1/res${i}`, methods: ['GET'], controller }); break;
      case 4: routes.push({ name: `dir${i}`, path: `/docs${i}/`, controller }); break;
    }
  }
  return routes;
}

function sharedDynamicPrefix(n: number): RouteDefinition[] {
  return Array.from({ length: n }, (_, i) => ({ name: `r${i}`, path: `/:tenant/res${i}/:id`, methods: ['GET'], controller }));
}

type Req = [path: string, method: string];

function requestsFor(n: number): Record<string, Req[]> {
  const pick = (k: number) => Array.from({ length: 16 }, (_, j) => Math.floor(((j + 0.5) / 16) * (n / 5)) * 5 + k);
  return {
    'static hit': pick(0).map((i) => [`/page${i}`, 'GET']),
    'dynamic hit': pick(1).map((i) => [`/items${i}/12345`, 'GET']),
    'prefixed hit': pick(2).map((i) => [`/api/v1/res${i}/abc`, 'POST']),
    '405 (DELETE)': pick(3).map((i) => [`/api/v1/res${i}`, 'DELETE']),
    '404 (GET)': pick(0).map((i) => [`/nope${i}/x`, 'GET']),
    redirect: pick(4).map((i) => [`/docs${i}`, 'GET']),
  };
}

/** Best of 7 runs per size, sizes interleaved so that machine load drifts affect them alike. */
function bestOf(makeRuns: ((() => number))[]): number[] {
  const best = makeRuns.map(() => Infinity);
  for (let run = 0; run < 7; run++) makeRuns.forEach((fn, i) => (best[i] = Math.min(best[i]!, fn())));
  return best;
}

function measure(router: Router, requests: Req[], rounds: number): number {
  let sink = 0;
  const run = (count: number): void => {
    for (let r = 0; r < count; r++) {
      for (let k = 0; k < requests.length; k++) {
        const [path, method] = requests[k]!;
        try {
          sink += router.match(path, method).route.index;
        } catch (error) {
          sink += (error as Error).message.length;
        }
      }
    }
  };
  run(Math.max(1, rounds >> 2)); // warm-up
  const started = process.hrtime.bigint();
  run(rounds);
  const elapsed = Number(process.hrtime.bigint() - started);
  if (sink === -1) console.log(sink);
  return elapsed / (rounds * requests.length);
}

/** Makes sure each request really has the outcome its row claims. */
function check(router: Router, path: string, method: string, kind: string): void {
  let got: string;
  try {
    const m = router.match(path, method);
    got = m.redirectPath !== undefined ? 'redirect' : m.route.isStatic ? 'static hit' : m.route.path.startsWith('/api/') ? 'prefixed hit' : 'dynamic hit';
  } catch (error) {
    got = (error as { allowedMethods?: unknown }).allowedMethods ? '405 (DELETE)' : '404 (GET)';
  }
  if (got !== kind) throw new Error(`${method} ${path}: expected ${kind}, got ${got}`);
}

const sizes = [10, 100, 1000];
const routers = new Map(sizes.map((n) => [n, new Router(table(n))]));
const kinds = Object.keys(requestsFor(10));
const rows: string[][] = [['outcome', ...sizes.map((n) => `${n} routes`), '1000 / 10']];
for (const kind of kinds) {
  for (const n of sizes) for (const [path, method] of requestsFor(n)[kind]!) check(routers.get(n)!, path, method, kind);
  const ns = bestOf(sizes.map((n) => () => measure(routers.get(n)!, requestsFor(n)[kind]!, kind.startsWith('40') ? 2000 : 20000)));
  rows.push([kind, ...ns.map((v) => `${v.toFixed(0)} ns`), `${(ns[2]! / ns[0]!).toFixed(2)}x`]);
}
const lead = bestOf(
  sizes.map((n) => {
    // the shape of bench/inprocess.mjs's scaling run: `/r{i}/items/:id`, requests spread over the table
    const r = new Router(Array.from({ length: n }, (_, i) => ({ name: `r${i}`, path: `/r${i}/items/:id`, methods: ['GET'], controller })));
    const reqs: Req[] = Array.from({ length: 16 }, (_, j) => [`/r${Math.floor(((j + 0.5) / 16) * n)}/items/42`, 'GET']);
    return () => measure(r, reqs, 20000);
  }),
);
rows.push(['/r{i}/items/:id hit', ...lead.map((v) => `${v.toFixed(0)} ns`), `${(lead[2]! / lead[0]!).toFixed(2)}x`]);
const shared = bestOf(
  sizes.map((n) => {
    const r = new Router(sharedDynamicPrefix(n));
    const reqs: Req[] = Array.from({ length: 16 }, (_, j) => [`/acme/res${Math.floor(((j + 0.5) / 16) * n)}/7`, 'GET']);
    return () => measure(r, reqs, 20000);
  }),
);
rows.push(['(all behind /:tenant/)', ...shared.map((v) => `${v.toFixed(0)} ns`), `${(shared[2]! / shared[0]!).toFixed(2)}x`]);

const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const row of rows) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
