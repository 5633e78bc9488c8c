/** Construction, the route table API, and the index (static map + prefix trie) against a naive matcher. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { match as p2rMatch } from 'path-to-regexp';
import { MethodNotAllowedException, NoConfigurationException, ResourceNotFoundException } from '../../src/kernel/exceptions.ts';
import type { RouteDefinition } from '../../src/routing/route.ts';
import { Router } from '../../src/routing/router.ts';
import { controller, expectMatch, expectMethodNotAllowed, route, router } from './helpers.ts';

describe('construction', () => {
  test('duplicate route names throw at construction', () => {
    assert.throws(() => new Router([route('a', '/a'), route('a', '/b')]), { message: 'Route name "a" is defined more than once.' });
  });

  test('invalid paths throw at construction, naming the route', () => {
    for (const path of ['/foo(', '/:', '/foo/{bar', '/foo}', 'foo', '', '/:a:b', '/a?']) {
      assert.throws(() => new Router([route('ok', '/ok'), route('broken', path)]), (e: Error) => e.message.includes('"broken"'), JSON.stringify(path));
    }
  });

  test('regression: a Symfony-style path /members/{id} was read as an optional literal "id" (404 on /members/7); it is refused with the right syntax', () => {
    assert.throws(() => new Router([route('member', '/members/{id}')]), {
      message: 'Invalid path "/members/{id}" for route "member": "{id}" is Symfony\'s placeholder syntax; here a variable is ":id" ("{…}" marks an optional part, e.g. "{/:id}").',
    });
    // Optional parts of path-to-regexp still work.
    assert.deepEqual(new Router([route('page', '/blog{/:page}')]).get('page')!.variables, ['page']);
  });

  test('invalid requirements throw at construction', () => {
    assert.throws(() => new Router([route('r', '/r/:id', undefined, { requirements: { id: '(' } })]), /Invalid requirement for parameter "id" of route "r"/);
  });

  test('regression: an option beside the route keys (requiresLogin: true next to path) was ignored, leaving the route open; it throws at construction', () => {
    const misplaced = { ...route('private', '/private'), requiresLogin: true } as RouteDefinition;
    assert.throws(() => new Router([misplaced]), /^Error: Unknown key "requiresLogin" in route "private": .*go under "options"/);
    assert.throws(() => new Router([{ ...route('typo', '/typo'), method: ['GET'] } as RouteDefinition]), /Unknown key "method" in route "typo"/);
    assert.throws(() => new Router([{ name: 'none', path: '/none' } as RouteDefinition]), { message: 'Route "none" has no controller function.' });
    // regression: a Symfony controller string was refused without saying a string was given
    assert.throws(() => new Router([{ name: 'str', path: '/str', controller: 'App\\Controller\\Home::index' } as unknown as RouteDefinition]), { message: /^Route "str" has no controller function: got the string "App\\\\Controller\\\\Home::index" \(a Symfony controller name; give the function itself/ });
    assert.equal(new Router([{ ...route('private', '/private'), options: { requiresLogin: true } }]).get('private')!.options.requiresLogin, true);
  });

  test('routes, get() and the compiled shape', () => {
    const defs = [route('a', '/a', ['get']), route('b', '/b/:id{/:x}', undefined, { defaults: { x: '1' }, options: { cache: { maxAge: 60 } } })];
    const r = new Router(defs);
    assert.deepEqual(r.routes.map((x) => x.name), ['a', 'b']);
    const b = r.get('b')!;
    assert.equal(b.name, 'b');
    assert.equal(b.path, '/b/:id{/:x}');
    assert.deepEqual(b.methods, []);
    assert.equal(b.definition, defs[1]);
    assert.equal(b.controller, controller);
    assert.deepEqual(b.variables, ['id', 'x']);
    assert.deepEqual(b.options, { cache: { maxAge: 60 } });
    assert.equal(b.isStatic, false);
    assert.equal(r.get('a')!.isStatic, true);
    assert.deepEqual(r.get('a')!.methods, ['GET']);
    assert.equal(r.get('zzz'), undefined);
    assert.equal(r.get('__proto__'), undefined);
  });

  test('an empty table', () => {
    const r = new Router([]);
    assert.equal(r.routes.length, 0);
    assert.deepEqual(r.explain('/x', 'GET'), []);
  });
});

// ---------------------------------------------------------------------------------------------------
// Differential test: the indexed router against a straightforward reading of symfony-reference.md §3.3,
// built independently on path-to-regexp's own match().

type Outcome = string;

function naiveRouter(defs: RouteDefinition[]): (path: string, method: string) => Outcome {
  const encodePath = (t: string): string => t.replace(/[\u0000-\u0020"#<>?`{}\u007f]|[^\u0000-\u007f]/gu, (c) => encodeURIComponent(c));
  const compiled = defs.map((d) => {
    // Symfony's Route::setPath: `'/'.ltrim(trim($pattern), '/')`.
    const path = '/' + d.path.replace(/^\/+/, '');
    const fn = p2rMatch(path, {
      sensitive: true,
      trailing: false,
      decode: (v) => v, // decoded below, so that a malformed escape is a no-match
      encodePath,
    });
    const reqs = Object.entries(d.requirements ?? {}).map(([k, v]) => [k, new RegExp(`^(?:${typeof v === 'string' ? v : v.source})$`)] as const);
    const methods = (d.methods ?? []).map((m) => m.toUpperCase());
    const test = (p: string): Record<string, unknown> | null => {
      const m = fn(p);
      if (!m) return null;
      const out: Record<string, unknown> = { ...d.defaults };
      try {
        for (const [k, v] of Object.entries(m.params)) {
          // rawurldecode: a `%` that starts no escape stays; bytes that are no UTF-8 are no match.
          const decode = (s: string): string => decodeURIComponent(s.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
          out[k] = Array.isArray(v) ? v.map(decode) : decode(v as string);
        }
      } catch {
        return null;
      }
      for (const [k, re] of reqs) {
        const v = out[k];
        if (k in m.params && !re.test(Array.isArray(v) ? v.join('/') : String(v))) return null;
      }
      return out;
    };
    return { d, path, test, methods, isStatic: !/[:*{]/.test(path), trimmedLookup: false };
  });
  // Symfony keeps a static route static (looked up by the rtrimmed path, ahead of the dynamic routes)
  // unless an earlier dynamic route can match its path with or without the trailing slash; then it is
  // compiled as dynamic, with one optional slash. Kept static, one ending in `/` serves `/dir//` too.
  for (const [i, c] of compiled.entries()) {
    if (!c.isStatic) continue;
    const strict = c.test;
    const base = encodePath(c.path);
    const url = base.length > 1 && base.endsWith('/') ? base.slice(0, -1) : base;
    c.trimmedLookup = !compiled.slice(0, i).some((o) => !o.trimmedLookup && (o.test(url) || o.test(url + '/')));
    if (c.trimmedLookup && url !== base) c.test = (p) => strict(p.startsWith(base) && /^\/*$/.test(p.slice(base.length)) ? base : p);
  }
  const toggle = (p: string): string | null => {
    const t = p.replace(/\/+$/, '');
    return t === '' ? null : t === p ? p + '/' : t;
  };
  const pass = (p: string, method: string): { hit?: string; allowed: string[]; stop?: boolean } => {
    const allowed: string[] = [];
    // CompiledUrlMatcherTrait::doMatch: a dynamic route's regex takes one optional trailing slash, so with
    // two or more only the static lookup (by the rtrimmed path, first) can find a slash mismatch.
    const slashes = /\/\/$/.test(p);
    const trimmed = p.replace(/\/+$/, '') || '/';
    const order = slashes ? [...compiled.filter((c) => c.trimmedLookup), ...compiled.filter((c) => !c.trimmedLookup)] : compiled;
    for (const c of order) {
      const params = c.test(p);
      if (params) {
        if (c.methods.length === 0 || c.methods.includes(method) || (method === 'HEAD' && c.methods.includes('GET'))) {
          return { hit: `${c.d.name} ${JSON.stringify(params)}`, allowed };
        }
        for (const m of c.methods) if (!allowed.includes(m)) allowed.push(m);
        continue;
      }
      const t = toggle(p);
      const differs = slashes ? c.trimmedLookup && encodePath(c.path) === trimmed : t !== null && c.test(t) !== null;
      if ((method === 'GET' || method === 'HEAD') && differs && (c.methods.length === 0 || c.methods.includes('GET'))) {
        return { allowed: [], stop: true };
      }
    }
    return { allowed };
  };
  return (path, method) => {
    const first = pass(path, method);
    if (first.hit) return 'match ' + first.hit;
    if (first.allowed.length) return '405 ' + first.allowed.join(',');
    if (path === '/') return 'noconfig';
    const t = toggle(path);
    if ((method !== 'GET' && method !== 'HEAD') || t === null) return `404 ${path}`;
    const second = pass(t, method);
    if (second.hit) return /^\/(\/|\\|%2f|%5c)/i.test(t) ? `404 ${t}` : `redirect ${t} ${second.hit}`;
    return `404 ${t}`;
  };
}

function outcomeOf(r: Router, path: string, method: string): Outcome {
  try {
    const m = r.match(path, method);
    const hit = `${m.route.name} ${JSON.stringify(m.params)}`;
    return m.redirectPath !== undefined ? `redirect ${m.redirectPath} ${hit}` : `match ${hit}`;
  } catch (error) {
    if (error instanceof NoConfigurationException) return 'noconfig';
    if (error instanceof MethodNotAllowedException) return '405 ' + error.allowedMethods.join(',');
    if (error instanceof ResourceNotFoundException) return '404 ' + /^No routes found for "(.*)"\.$/s.exec(error.message)![1];
    throw error;
  }
}

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('index equivalence (static map + prefix trie vs a naive in-order scan)', () => {
  const tally = new Map<string, number>();
  after(() => {
    // The random tables must exercise every outcome, or this comparison proves little.
    for (const kind of ['match', 'redirect', '405', '404', 'noconfig']) assert.ok((tally.get(kind) ?? 0) >= 20, `${kind}: ${tally.get(kind)}`);
  });
  const words = ['a', 'b', 'api', 'v1', 'x', ''];
  const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const segment = (rnd: () => number, i: number): string => {
    const k = rnd();
    if (k < 0.55) return pick(rnd, words);
    if (k < 0.75) return `:p${i}`;
    if (k < 0.82) return `x{-:o${i}}`;
    if (k < 0.88) return `*w${i}`;
    return pick(rnd, ['a.b', 'b%20c', 'café']);
  };

  for (let seed = 1; seed <= 40; seed++) {
    test(`random table #${seed}`, () => {
      const rnd = prng(seed);
      const defs: RouteDefinition[] = [];
      const n = 5 + Math.floor(rnd() * 40);
      for (let i = 0; i < n; i++) {
        const depth = 1 + Math.floor(rnd() * 3);
        const segs: string[] = [];
        for (let s = 0; s < depth; s++) segs.push(segment(rnd, s));
        let path = '/' + segs.join('/');
        if (rnd() < 0.25) path += '/';
        if (rnd() < 0.1) path += '{/:opt}';
        const methods = rnd() < 0.5 ? undefined : [pick(rnd, ['GET', 'POST', 'HEAD', 'PUT']), ...(rnd() < 0.3 ? ['post'] : [])];
        const requirements = rnd() < 0.2 ? { p0: '[a-z]+', p1: '\\d+|a' } : undefined;
        const defaults = rnd() < 0.2 ? { p0: 'dflt', d: 1 } : undefined;
        try {
          new Router([route('probe', path)]);
        } catch {
          continue; // shapes path-to-regexp rejects
        }
        defs.push(route(`r${i}`, path, methods, { ...(requirements ? { requirements } : {}), ...(defaults ? { defaults } : {}) }));
      }
      const r = new Router(defs);
      const naive = naiveRouter(defs);
      const pathWords = ['a', 'b', 'api', 'v1', 'x', '', '1', 'a.b', 'b%20c', 'caf%C3%A9', '%E0%A4%A', 'x-1', 'zz'];
      for (let q = 0; q < 400; q++) {
        const depth = Math.floor(rnd() * 5);
        let path = '/' + Array.from({ length: depth }, () => pick(rnd, pathWords)).join('/');
        if (rnd() < 0.2) path += '/';
        if (rnd() < 0.08) path += '//';
        if (rnd() < 0.05) path = '/' + path;
        const method = pick(rnd, ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']);
        const outcome = outcomeOf(r, path, method);
        tally.set(outcome.split(' ')[0]!, (tally.get(outcome.split(' ')[0]!) ?? 0) + 1);
        assert.equal(outcome, naive(path, method), `${method} ${path} in ${JSON.stringify(defs.map((d) => [d.path, d.methods]))}`);
        const matched = r.explain(path, method).filter((e) => e.outcome === 'match');
        assert.ok(matched.length <= 1);
      }
      // and every route's own example paths
      for (const d of defs) {
        const sample = d.path.replace(/\{[^}]*\}/g, '').replace(/[:*][a-z0-9]+/g, 'a');
        for (const method of ['GET', 'POST', 'HEAD']) {
          for (const p of [sample, sample + '/', sample.replace(/\/$/, '')]) {
            if (p === '') continue;
            assert.equal(outcomeOf(r, p, method), naive(p, method), `${method} ${p}`);
          }
        }
      }
    });
  }
});

describe('route definitions', () => {
  test('regression: methods given as one string became its letters (GET answered 405 with "Allow: G, E, T")', () => {
    const r = router({ ...route('s', '/s'), methods: 'GET' as unknown as string[] });
    expectMatch(r, '/s', 'GET', 's');
    expectMatch(r, '/s', 'HEAD', 's');
    expectMethodNotAllowed(r, '/s', 'POST', ['GET']);
  });

  test('regression: a variable named twice was accepted and its first value silently lost; refused as Symfony\'s RouteCompiler does', () => {
    for (const path of ['/g/:id/:id', '/g/:id{/:id}', '/g{/:a}/x/*a']) {
      assert.throws(() => router(route('g', path)), (e: unknown) => (e as Error).message === `Route pattern "${path}" cannot reference variable name "${path.includes(':a') ? 'a' : 'id'}" more than once.`, path);
    }
    router(route('ok', '/m{/:a}{/:b}'));
  });
});
