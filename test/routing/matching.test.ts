/**
 * The matching algorithm: every row of symfony-reference.md §3.3's table, then the rules around it
 * (first match wins, the trailing-slash stop, HEAD versus GET, allowed-method lists, `/`).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  expectMatch,
  expectMethodNotAllowed,
  expectNoConfiguration,
  expectNotFound,
  expectRedirect,
  route,
  router,
} from './helpers.ts';

describe('reference table §3.3', () => {
  const unrelated = route('other', '/other');

  test('GET /foo, nothing for /foo or /foo/ -> 404 "No routes found for "/foo/"."', () => {
    expectNotFound(router(unrelated), '/foo', 'GET', 'No routes found for "/foo/".');
    expectNotFound(router(), '/foo', 'GET', 'No routes found for "/foo/".');
  });

  test('GET /foo/, nothing -> 404 "/foo"', () => {
    expectNotFound(router(unrelated), '/foo/', 'GET', 'No routes found for "/foo".');
  });

  test('GET /foo//, nothing -> 404 "/foo" (all trailing slashes removed)', () => {
    expectNotFound(router(unrelated), '/foo//', 'GET', 'No routes found for "/foo".');
  });

  test('POST /foo, nothing -> 404 "/foo" (no toggle for non-GET/HEAD)', () => {
    expectNotFound(router(unrelated), '/foo', 'POST', 'No routes found for "/foo".');
    expectNotFound(router(unrelated), '/foo/', 'DELETE', 'No routes found for "/foo/".');
  });

  test('GET /foo with route /foo/ (any method, or GET) -> redirect to /foo/', () => {
    expectRedirect(router(route('slash', '/foo/')), '/foo', 'GET', 'slash', '/foo/');
    expectRedirect(router(route('slash', '/foo/', ['GET'])), '/foo', 'GET', 'slash', '/foo/');
    expectRedirect(router(route('slash', '/foo/', ['POST', 'GET'])), '/foo', 'GET', 'slash', '/foo/');
  });

  test('GET /foo/ with route /foo [GET] -> redirect to /foo', () => {
    expectRedirect(router(route('foo', '/foo', ['GET'])), '/foo/', 'GET', 'foo', '/foo');
  });

  test('HEAD /foo with route /foo/ [GET] -> redirect to /foo/', () => {
    expectRedirect(router(route('slash', '/foo/', ['GET'])), '/foo', 'HEAD', 'slash', '/foo/');
  });

  test('POST /foo with route /foo/ (no method restriction) -> 404 "/foo"', () => {
    expectNotFound(router(route('slash', '/foo/')), '/foo', 'POST', 'No routes found for "/foo".');
  });

  test('GET /foo with route /foo [POST] -> 405 Allow: POST, empty message', () => {
    expectMethodNotAllowed(router(route('foo', '/foo', ['POST'])), '/foo', 'GET', ['POST']);
  });

  test('HEAD /foo with route /foo [GET] -> match (HEAD served by the GET route)', () => {
    expectMatch(router(route('foo', '/foo', ['GET'])), '/foo', 'HEAD', 'foo');
  });

  test('PUT /foo with /foo [GET] and /foo [POST] -> 405 Allow: GET, POST', () => {
    expectMethodNotAllowed(router(route('a', '/foo', ['GET']), route('b', '/foo', ['POST'])), '/foo', 'PUT', ['GET', 'POST']);
  });

  test('GET /foo/ with only /foo [POST] -> 404 "/foo" (the retry\'s allowed methods are ignored)', () => {
    expectNotFound(router(route('foo', '/foo', ['POST'])), '/foo/', 'GET', 'No routes found for "/foo".');
  });

  test('GET /foo with only /foo/ [POST] -> 404 "/foo/"', () => {
    expectNotFound(router(route('slash', '/foo/', ['POST'])), '/foo', 'GET', 'No routes found for "/foo/".');
  });

  test('any method on / with no route matching / -> NoConfigurationException (empty), even with other routes', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) {
      expectNoConfiguration(router(), '/', method);
      expectNoConfiguration(router(route('a', '/a'), route('b', '/b/:id'), route('c', '/c/')), '/', method);
    }
    expectNoConfiguration(router(route('a', '/a')), '', 'GET'); // empty path info is "/"
  });

  test('GET /caf%C3%A9, nothing -> 404 with the raw (not decoded) toggled path', () => {
    expectNotFound(router(unrelated), '/caf%C3%A9', 'GET', 'No routes found for "/caf%C3%A9/".');
  });
});

describe('around the table', () => {
  test('/ with a method-mismatching route at / -> 405, not NoConfiguration', () => {
    expectMethodNotAllowed(router(route('home', '/', ['POST'])), '/', 'GET', ['POST']);
  });

  test('/ with a route -> match', () => {
    expectMatch(router(route('home', '/')), '/', 'GET', 'home');
    expectMatch(router(route('p', '/:x'), route('home', '/')), '/', 'POST', 'home');
  });

  test('first match in table order wins, dynamic before static included', () => {
    const r = router(route('slug', '/:slug', ['GET']), route('about', '/about', ['GET']));
    expectMatch(r, '/about', 'GET', 'slug');
    const r2 = router(route('about', '/about', ['GET']), route('slug', '/:slug', ['GET']));
    expectMatch(r2, '/about', 'GET', 'about');
    expectMatch(r2, '/contact', 'GET', 'slug');
  });

  test('method mismatch on an earlier route does not stop a later match', () => {
    const r = router(route('post', '/foo', ['POST']), route('get', '/foo', ['GET']));
    expectMatch(r, '/foo', 'GET', 'get');
    expectMatch(r, '/foo', 'POST', 'post');
  });

  test('/foo/ defined before /foo: GET /foo redirects to /foo/ (the stop), POST /foo matches /foo', () => {
    const r = router(route('slash', '/foo/'), route('noslash', '/foo'));
    expectRedirect(r, '/foo', 'GET', 'slash', '/foo/');
    expectRedirect(r, '/foo', 'HEAD', 'slash', '/foo/');
    expectMatch(r, '/foo', 'POST', 'noslash');
    expectMatch(r, '/foo/', 'GET', 'slash');
  });

  test('methods collected before the trailing-slash stop are discarded (redirect, not 405)', () => {
    const r = router(route('post', '/foo', ['POST']), route('slash', '/foo/', ['GET']));
    expectRedirect(r, '/foo', 'GET', 'slash', '/foo/');
    expectMatch(r, '/foo', 'POST', 'post');
    expectMethodNotAllowed(r, '/foo', 'PUT', ['POST']);
  });

  test('a route that matches only with the slash toggled and disallows GET adds nothing to Allow', () => {
    const r = router(route('slash', '/foo/', ['POST']), route('put', '/foo', ['PUT']));
    expectMethodNotAllowed(r, '/foo', 'GET', ['PUT']);
  });

  test('GET /foo// with route /foo -> redirect to /foo', () => {
    expectRedirect(router(route('foo', '/foo')), '/foo//', 'GET', 'foo', '/foo');
  });

  test('trailing-slash redirect for dynamic routes keeps the raw path', () => {
    const r = router(route('member', '/members/:id/'));
    const m = expectRedirect(r, '/members/caf%C3%A9', 'GET', 'member', '/members/caf%C3%A9/');
    assert.deepEqual(m.params, { id: 'café' });
  });

  test('redirect match carries the params of the toggled path', () => {
    const r = router(route('blog', '/blog/:page', ['GET'], { defaults: { page: '1', _format: 'html' } }));
    const m = expectRedirect(r, '/blog/7/', 'GET', 'blog', '/blog/7');
    assert.deepEqual(m.params, { page: '7', _format: 'html' });
  });

  test('no redirect when the toggled path would match but the request method is not GET/HEAD', () => {
    const r = router(route('foo', '/foo'));
    expectNotFound(r, '/foo/', 'POST', 'No routes found for "/foo/".');
    expectNotFound(r, '/foo/', 'OPTIONS', 'No routes found for "/foo/".');
  });

  test('paths made only of slashes are not toggled', () => {
    const r = router(route('a', '/a'));
    expectNotFound(r, '//', 'GET', 'No routes found for "//".');
    expectNotFound(r, '///', 'GET', 'No routes found for "///".');
  });

  test('matching is case-sensitive (no redirect, no match)', () => {
    const r = router(route('foo', '/foo'), route('m', '/members/:id'));
    expectNotFound(r, '/FOO', 'GET', 'No routes found for "/FOO/".');
    expectNotFound(r, '/Members/1', 'GET', 'No routes found for "/Members/1/".');
    expectMatch(r, '/foo', 'GET', 'foo');
  });
});

describe('HEAD versus GET (§3.7) and method lists', () => {
  test('a HEAD-only route matches HEAD, and GET to it is 405 Allow: HEAD', () => {
    const r = router(route('head', '/foo', ['HEAD']));
    expectMatch(r, '/foo', 'HEAD', 'head');
    expectMethodNotAllowed(r, '/foo', 'GET', ['HEAD']);
  });

  test('a HEAD-only route does not stop the pass for a redirect; only the retry can reach it', () => {
    // First pass skips it (it does not allow GET), so a later exact match wins...
    const r = router(route('head', '/foo/', ['HEAD']), route('get', '/foo', ['GET']));
    expectMatch(r, '/foo', 'HEAD', 'get');
    expectMatch(r, '/foo', 'GET', 'get');
    // ...and alone, HEAD is redirected by the retry (as Symfony: the retry accepts HEAD), GET is a 404.
    const alone = router(route('head', '/foo/', ['HEAD']));
    expectRedirect(alone, '/foo', 'HEAD', 'head', '/foo/');
    expectNotFound(alone, '/foo', 'GET', 'No routes found for "/foo/".');
  });

  test('Allow never gains HEAD implicitly', () => {
    expectMethodNotAllowed(router(route('get', '/foo', ['GET'])), '/foo', 'POST', ['GET']);
  });

  test('methods are upper-cased and deduplicated, in route-table order', () => {
    const r = router(
      route('a', '/foo', ['post', 'put']),
      route('b', '/:x', ['get', 'PUT', 'Get']),
      route('c', '/foo', ['PATCH', 'post']),
    );
    assert.deepEqual(r.get('a')!.methods, ['POST', 'PUT']);
    assert.deepEqual(r.get('b')!.methods, ['GET', 'PUT']);
    expectMethodNotAllowed(r, '/foo', 'DELETE', ['POST', 'PUT', 'GET', 'PATCH']);
    expectMatch(r, '/foo', 'PUT', 'a');
  });

  test('undefined or empty methods = Symfony\'s methods without TRACE and CONNECT', () => {
    const r = router(route('any', '/any'), route('empty', '/empty', []));
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE']) {
      expectMatch(r, '/any', method, 'any');
      expectMatch(r, '/empty', method, 'empty');
    }
    assert.deepEqual(r.get('empty')!.methods, []);
  });

  test('regression: TRACE, CONNECT and unknown methods were served by a route without methods (and a 404 elsewhere); now a 405 with Allow on every path', () => {
    const defaults = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE'];
    const r = router(route('any', '/any'), route('get', '/get', ['GET']), route('dav', '/dav', ['PROPFIND']));
    for (const method of ['TRACE', 'CONNECT', 'BREW']) {
      expectMethodNotAllowed(r, '/any', method, defaults);
      expectMethodNotAllowed(r, '/get', method, ['GET']);
      expectMethodNotAllowed(r, '/nowhere', method, defaults);
      expectMethodNotAllowed(r, '/', method, defaults);
    }
    // A method a route lists by name is served there, and is an ordinary 404 or 405 elsewhere.
    expectMatch(r, '/dav', 'PROPFIND', 'dav');
    expectMethodNotAllowed(r, '/get', 'PROPFIND', ['GET']);
    expectNotFound(r, '/nowhere', 'PROPFIND', 'No routes found for "/nowhere".');
    expectMethodNotAllowed(r, '/any', 'PROPFIND', defaults);
    const traced = router(route('trace', '/t', ['TRACE']));
    expectMatch(traced, '/t', 'TRACE', 'trace');
    // With no routes at all, TRACE to / is a 405 as well, not the welcome page.
    expectMethodNotAllowed(router(), '/', 'TRACE', defaults);
  });

  test('405 collects methods from static and dynamic routes alike', () => {
    const r = router(route('s', '/items/new', ['POST']), route('d', '/items/:id', ['GET', 'DELETE']));
    expectMethodNotAllowed(r, '/items/new', 'PUT', ['POST', 'GET', 'DELETE']);
    expectMatch(r, '/items/new', 'GET', 'd');
  });
});

describe('extra trailing slashes (CompiledUrlMatcherTrait: static routes are looked up by the rtrimmed path)', () => {
  test('regression: GET /dir// on a static route /dir/ was a 404; Symfony serves it (and a method mismatch is a 405)', () => {
    const r = router(route('dir', '/dir/', ['GET']), route('post', '/post/', ['POST']));
    expectMatch(r, '/dir//', 'GET', 'dir');
    expectMatch(r, '/dir///', 'HEAD', 'dir');
    expectMethodNotAllowed(r, '/dir//', 'POST', ['GET']);
    expectMatch(r, '/post//', 'POST', 'post');
    // The exact path and the redirect are unchanged; a route without the slash still redirects `//` away.
    expectMatch(r, '/dir/', 'GET', 'dir');
    expectRedirect(r, '/dir', 'GET', 'dir', '/dir/');
    expectRedirect(router(route('file', '/file')), '/file//', 'GET', 'file', '/file');
    // Only slashes may follow: /dir//x is another path.
    expectNotFound(r, '/dir//x', 'GET', 'No routes found for "/dir//x/".');
  });

  test('dynamic routes take one trailing slash only, as their Symfony regex does', () => {
    expectNotFound(router(route('a', '/a/:x/')), '/a/b//', 'GET', 'No routes found for "/a/b".');
  });

  test('a static route that an earlier dynamic route can match is compiled as dynamic by Symfony: no extra slashes', () => {
    const r = router(route('any', '/:x/', ['POST']), route('dir', '/dir/', ['GET']));
    expectMatch(r, '/dir/', 'GET', 'dir');
    expectNotFound(r, '/dir//', 'GET', 'No routes found for "/dir".');
    // An earlier dynamic route that cannot match it leaves the static lookup alone.
    expectMatch(router(route('num', '/:n/', undefined, { requirements: { n: '\\d+' } }), route('dir', '/dir/')), '/dir//', 'GET', 'dir');
  });
});
