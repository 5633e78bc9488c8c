import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidParameterException, ResourceNotFoundException } from '../../src/kernel/exceptions.ts';
import { isUnsafeRedirectPath } from '../../src/routing/safe-path.ts';
import { expectMatch, expectMethodNotAllowed, expectNotFound, expectRedirect, route, router } from './helpers.ts';

describe('routing audit', () => {
  test('regression: a long run of escapes in a path whose toggled form matches (GET /%09…%09/ on /:slug, 390 KB) took seconds: the open-redirect check copied the rest of the path at every step', () => {
    const r = router(route('page', '/:slug'));
    const path = '/' + '%09'.repeat(130_000) + '/';
    const started = performance.now();
    // The toggled path matches /:slug, but it starts with `/` then tabs then more: no redirect there (CONTRACT §4.2).
    assert.throws(() => r.match(path, 'GET'), (e: unknown) => e instanceof ResourceNotFoundException);
    assert.equal(isUnsafeRedirectPath('/' + '%20'.repeat(130_000)), true);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 300, `took ${elapsed.toFixed(0)} ms`);
    // Still the same answers on short paths.
    assert.equal(isUnsafeRedirectPath('/%2525%2F'), false);
    assert.equal(isUnsafeRedirectPath('/%252F'), true);
    assert.equal(isUnsafeRedirectPath('/%09%0A/x'), true);
    assert.equal(isUnsafeRedirectPath('/a%2F'), false);
  });

  // CompiledUrlMatcherTrait::doMatch (5.4): a dynamic route's regex is its own with one optional trailing
  // slash (`/?$`, CompiledUrlMatcherDumper::groupStaticRoutes), matched against the whole path; only a
  // route that regex matches can stop the pass for the trailing-slash redirect. Static routes are looked
  // up by the path with every trailing slash removed (`$this->staticRoutes[$trimmedPathinfo]`), before
  // the dynamic ones.
  test('regression: a path ending in two slashes stopped the pass at a dynamic route matching it without them (GET /about// redirected); Symfony\'s `/?$` regex takes one slash, so later routes are tried', () => {
    const page = route('page', '/:page', ['GET']);
    // A later route that matches the path itself serves it.
    const m = expectMatch(router(page, route('fallback', '/*path')), '/about//', 'GET', 'fallback');
    assert.deepEqual(m.params, { path: ['about', '', ''] });
    expectMatch(router(route('blog', '/blog{/:page}'), route('fallback', '/*path')), '/blog//', 'HEAD', 'fallback');
    // A later route that matches it for other methods makes it a 405.
    expectMethodNotAllowed(router(page, route('api', '/*path', ['POST'])), '/about//', 'GET', ['POST']);
    // Nothing else: the retry without the slashes still redirects, as before.
    expectRedirect(router(page), '/about//', 'GET', 'page', '/about');
    // One slash: the dynamic route's regex takes it, so the pass stops there, as before.
    expectRedirect(router(page, route('fallback', '/*path')), '/about/', 'GET', 'page', '/about');
    // The profiler's explanation agrees.
    assert.deepEqual(router(page, route('fallback', '/*path')).explain('/about//', 'GET').map((e) => e.outcome), ['path does not match', 'match']);
    assert.deepEqual(router(route('section', '/:a/*b'), route('foo', '/foo')).explain('/foo//', 'GET').map((e) => e.outcome), ['not examined', 'trailing slash differs']);
  });

  test('regression: GET // with a route / was served by a later route (or a 405); Symfony\'s static lookup by the rtrimmed path finds / and stops the pass: 404 "//"', () => {
    expectNotFound(router(route('home', '/'), route('fallback', '/*path')), '//', 'GET', 'No routes found for "//".');
    expectNotFound(router(route('home', '/'), route('api', '/*path', ['POST'])), '//', 'GET', 'No routes found for "//".');
    // Not for POST (no redirect support): the later route is tried.
    expectMatch(router(route('home', '/'), route('fallback', '/*path')), '//', 'POST', 'fallback');
  });

  test('regression: a static route came after an earlier dynamic one for a path ending in two slashes; Symfony looks static routes up first (GET /foo// redirects to /foo)', () => {
    // `/:a/*b` matches `/foo//` but neither `/foo` nor `/foo/`, so `/foo` stays a static route in Symfony.
    const r = router(route('section', '/:a/*b'), route('foo', '/foo'), route('dir', '/dir/', ['POST']));
    expectRedirect(r, '/foo//', 'GET', 'foo', '/foo');
    // A static route that does not stop (method mismatch) leaves the path to the dynamic ones.
    expectMatch(r, '/dir//', 'GET', 'section');
    // Other methods: the static route is passed over (no stop), the dynamic one matches.
    expectMatch(r, '/foo//', 'POST', 'section');
    // A static route an earlier dynamic route can match is compiled as dynamic: table order, no stop.
    expectMatch(router(route('any', '/*all'), route('foo', '/foo')), '/foo//', 'GET', 'any');
    // …and, a pattern taking one trailing slash, it does not stop the pass for `/foo//` either.
    expectMethodNotAllowed(router(route('dir', '/:a/', ['POST']), route('foo', '/foo'), route('api', '/*p', ['POST'])), '/foo//', 'GET', ['POST']);
  });

  // UrlGenerator::doGenerate (5.4): a path value is used as a string (`preg_match`, concatenation), which
  // PHP refuses for a Closure (no __toString); the query's caster leaves an object without public
  // properties or __toString as it is, and http_build_query writes nothing for it.
  test('regression: a function given as a parameter (a getter not called) wrote its source code into the URL; Symfony refuses it in the path and writes nothing for it in the query', () => {
    const g = router(route('post', '/post/:id'), route('files', '/files/*path'), route('list', '/list'));
    const getId = function getId(): number { return 7; };
    for (const [name, params] of [['post', { id: getId }], ['files', { path: getId }]] as const) {
      assert.throws(() => g.generate(name, params), (e: unknown) => e instanceof InvalidParameterException && /must be a scalar/.test(e.message), name);
    }
    assert.equal(g.generate('list', { sort: getId, page: 2 }), '/list?page=2');
    assert.equal(g.generate('list', { f: { by: getId, q: 'x' } }), '/list?f%5Bq%5D=x');
  });
});
