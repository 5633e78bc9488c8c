/** Regression tests: open redirects through the trailing-slash redirect, ReDoS, malformed input. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ResourceNotFoundException } from '../../src/kernel/exceptions.ts';
import { Router } from '../../src/routing/router.ts';
import { hardenGeneratedPath, isUnsafeRedirectPath } from '../../src/routing/safe-path.ts';
import { expectMatch, expectNotFound, expectRedirect, route, router } from './helpers.ts';

describe('open redirect via the trailing-slash redirect', () => {
  // A catch-all that only matches with a trailing slash: GET <x> is redirected to <x>/ when safe.
  const trailingCatchAll = router(route('dir', '/*path/', ['GET']));
  // A catch-all that only matches WITHOUT a trailing slash: GET <x>/ is redirected to <x> when safe.
  const noTrailingCatchAll = router(route('file', '/*path', ['GET'], { requirements: { path: '.*[^/]' } }));

  test('control: safe paths are still redirected', () => {
    expectRedirect(trailingCatchAll, '/docs/intro', 'GET', 'dir', '/docs/intro/');
    expectRedirect(trailingCatchAll, '/%41bc', 'GET', 'dir', '/%41bc/');
    expectRedirect(noTrailingCatchAll, '/docs/intro/', 'GET', 'file', '/docs/intro');
  });

  test('open redirect: GET //evil.com does not redirect', () => {
    expectNotFound(trailingCatchAll, '//evil.com', 'GET', 'No routes found for "//evil.com/".');
    expectNotFound(trailingCatchAll, '//evil.com', 'HEAD', 'No routes found for "//evil.com/".');
  });

  test('open redirect: GET //evil.com/ does not redirect to //evil.com', () => {
    expectNotFound(noTrailingCatchAll, '//evil.com/', 'GET', 'No routes found for "//evil.com".');
    expectNotFound(noTrailingCatchAll, '///evil.com//', 'GET', 'No routes found for "///evil.com".');
  });

  test('open redirect: GET /\\evil.com does not redirect', () => {
    expectNotFound(trailingCatchAll, '/\\evil.com', 'GET', 'No routes found for "/\\evil.com/".');
    expectNotFound(noTrailingCatchAll, '/\\evil.com/', 'GET', 'No routes found for "/\\evil.com".');
  });

  test('open redirect: percent-encoded slash or backslash (/%2F, /%5C, any case) does not redirect', () => {
    for (const p of ['/%2Fevil.com', '/%2fevil.com', '/%5Cevil.com', '/%5cevil.com', '/%5C%5Cevil.com', '/%2F%2Fevil.com', '/%252Fevil.com', '/%255cevil.com']) {
      expectNotFound(trailingCatchAll, p, 'GET', `No routes found for "${p}/".`);
    }
  });

  test('open redirect: control characters before the slash (/\\t/evil.com, /%09/, /%0A/, / /) do not redirect', () => {
    for (const p of ['/\t/evil.com', '/%09/evil.com', '/%0a/evil.com', '/%0D%0A/evil.com', '/ /evil.com', '/%20\\evil.com', '/%00/evil.com']) {
      expectNotFound(trailingCatchAll, p, 'GET', `No routes found for "${p}/".`);
    }
  });

  test('open redirect: an exact match for such a path is still served (no Location involved)', () => {
    const r = router(route('all', '/*path'));
    assert.deepEqual(expectMatch(r, '//evil.com', 'GET', 'all').params, { path: ['', 'evil.com'] });
  });

  test('isUnsafeRedirectPath', () => {
    for (const bad of ['//x', '/\\x', '/%2Fx', '/%2fx', '/%5Cx', '/%5cx', '/%252Fx', '/\t/x', '/\n\\x', '/%09%2F', '', 'x', 'http://evil.com', '/%20/x']) {
      assert.equal(isUnsafeRedirectPath(bad), true, JSON.stringify(bad));
    }
    for (const ok of ['/', '/x', '/x//y', '/x/', '/%41', '/%2', '/%zz/', '/.', '/x%2F%2F']) {
      assert.equal(isUnsafeRedirectPath(ok), false, JSON.stringify(ok));
    }
  });

  test('hardenGeneratedPath encodes a leading // and dot segments (Symfony UrlGenerator)', () => {
    assert.equal(hardenGeneratedPath('//evil.com'), '/%2Fevil.com');
    assert.equal(hardenGeneratedPath('/a/../b/./c/..'), '/a/%2E%2E/b/%2E/c/%2E%2E');
    assert.equal(hardenGeneratedPath('/a/.well-known/..x'), '/a/.well-known/..x');
  });
});

describe('ReDoS safety (path-to-regexp 8.4 routes, hostile 100 KB paths)', () => {
  const hostile = [
    '/' + 'a-'.repeat(50000),
    '/' + '-a'.repeat(50000),
    '/' + 'a-'.repeat(50000) + '/',
    '/x/' + 'a/'.repeat(50000),
    '/' + '%'.repeat(100000),
    '/' + 'a%2F'.repeat(25000) + '%',
  ];
  const r = new Router([
    route('two', '/:a-:b'),
    route('three', '/:a-:b-:c/end'),
    route('mixed', '/*a-:b-*c-:d'),
    route('groups', '/g{/:a}{/:b}{/:c}{/:d}{/:e}{/:f}{/:g}/z'),
    route('dots', '/:a.:b.:c/x'),
    route('deep', '/x/*rest/end', ['POST']),
    route('last', '/last/:id', undefined, { requirements: { id: '[a-z-]+' } }),
  ]);

  test('every hostile path is answered within the test (no catastrophic backtracking)', () => {
    for (const method of ['GET', 'POST', 'HEAD']) {
      for (const path of hostile) {
        const started = performance.now();
        try {
          r.match(path, method);
        } catch (error) {
          assert.ok(!(error instanceof URIError), 'URIError escaped');
          assert.ok(error instanceof Error);
        }
        r.explain(path, method);
        const elapsed = performance.now() - started;
        assert.ok(elapsed < 1000, `${method} ${path.slice(0, 12)}… took ${elapsed.toFixed(0)} ms`);
      }
    }
  });

  test('hostile paths still match where they should', () => {
    const m = r.match('/' + 'a-'.repeat(50000) + 'b', 'GET');
    assert.equal(m.route.name, 'two');
    const w = r.match('/x/' + 'a/'.repeat(50000) + 'end', 'POST');
    assert.equal(w.route.name, 'deep');
    assert.equal((w.params.rest as string[]).length, 50000);
  });

  test('routes that path-to-regexp 8 rejects fail at construction, not at request time', () => {
    for (const path of ['/:a(\\d+)', '/foo?', '/(.*)', '/:a+', '/*']) {
      assert.throws(() => new Router([route('bad', path)]), /Invalid path/);
    }
  });
});

describe('malformed input never throws anything but routing exceptions', () => {
  const r = router(route('m', '/m/:id'), route('w', '/w/*rest'), route('s', '/s/'));
  for (const path of ['/m/%E0%A4%A', '/%foobar', '/%', '/%C0%AF', '/%ED%A0%80', '/m/%00', '/w/%', '/m/\u0000', '/s%2F', '', 'no-slash', '*', '/m/__proto__', '/m/constructor']) {
    test(`GET ${JSON.stringify(path)}`, () => {
      for (const method of ['GET', 'POST', 'HEAD']) {
        try {
          const m = r.match(path, method);
          assert.equal(typeof m.route.name, 'string');
        } catch (error) {
          assert.ok(error instanceof ResourceNotFoundException, `${method} ${path}: ${String(error)}`);
        }
        assert.equal(r.explain(path, method).length, 3);
      }
    });
  }

  test('":__proto__" param names are refused at construction; "__proto__" values are inert data', () => {
    assert.throws(() => new Router([route('p', '/:__proto__')]), /__proto__/);
    const m = r.match('/m/__proto__', 'GET');
    assert.equal(m.params.id, '__proto__');
    assert.equal(Object.getPrototypeOf(m.params), Object.prototype);
  });
});
