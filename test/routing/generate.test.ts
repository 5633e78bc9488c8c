/** URL generation. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Router } from '../../src/routing/router.ts';
import { expectMatch, route, router } from './helpers.ts';
import { InvalidParameterException, MissingMandatoryParametersException, RouteNotFoundException } from '../../src/kernel/exceptions.ts';

const r = new Router([
  route('home', '/'),
  route('_profiler', '/_profiler/:token', ['GET']),
  route('member', '/members/:id', ['GET'], { requirements: { id: '\\d+' } }),
  route('blog', '/blog{/:page}', ['GET'], { defaults: { page: '1' } }),
  route('archive', '/archive/:year', ['GET'], { defaults: { year: '2024' } }),
  route('files', '/files/*rest'),
  route('root_files', '/*rest/raw'),
  route('name', '/n/:name'),
  route('cafe', '/café/:x'),
  route('list', '/list', ['GET'], { defaults: { n: 10, sort: 'asc' } }),
  route('localized', '/:_locale/about', ['GET']),
]);

describe('generate()', () => {
  test('builds paths from route names', () => {
    assert.equal(r.generate('home'), '/');
    assert.equal(r.generate('_profiler', { token: 'a1b2c3' }), '/_profiler/a1b2c3');
    assert.equal(r.generate('member', { id: 42 }), '/members/42');
  });

  test('absoluteBase is prefixed (a trailing slash on it is dropped)', () => {
    assert.equal(r.generate('_profiler', { token: 'a1b2c3' }, { absoluteBase: 'http://127.0.0.1:8000' }), 'http://127.0.0.1:8000/_profiler/a1b2c3');
    assert.equal(r.generate('home', {}, { absoluteBase: 'https://example.com/' }), 'https://example.com/');
    assert.equal(r.generate('home', {}, {}), '/');
  });

  test('unknown route name', () => {
    assert.throws(() => r.generate('nope'), {
      message: 'Unable to generate a URL for the named route "nope" as such route does not exist.',
    });
  });

  test('missing mandatory parameter', () => {
    assert.throws(() => r.generate('_profiler'), { message: 'Some mandatory parameters are missing ("token") to generate a URL for route "_profiler".' });
    assert.throws(() => r.generate('_profiler', { token: null }), Error);
    assert.throws(() => r.generate('files', { rest: [] }), /missing/);
  });

  test('parameter values are percent-encoded', () => {
    assert.equal(r.generate('name', { name: 'a b?c#d%' }), '/n/a%20b%3Fc%23d%25');
    assert.equal(r.generate('name', { name: 'café' }), '/n/caf%C3%A9');
    assert.equal(r.generate('cafe', { x: '1' }), '/caf%C3%A9/1');
  });

  test('requirements are enforced', () => {
    assert.throws(() => r.generate('member', { id: 'abc' }), {
      message: 'Parameter "id" for route "member" must match "\\d+" ("abc" given) to generate a corresponding URL.',
    });
  });

  test('defaults: mandatory variables fall back to them, optional groups are left out', () => {
    assert.equal(r.generate('archive'), '/archive/2024');
    assert.equal(r.generate('archive', { year: 2020 }), '/archive/2020');
    assert.equal(r.generate('blog'), '/blog');
    assert.equal(r.generate('blog', { page: 3 }), '/blog/3');
  });

  test('wildcards take arrays or "/"-separated strings, each segment encoded', () => {
    assert.equal(r.generate('files', { rest: ['a', 'b c'] }), '/files/a/b%20c');
    assert.equal(r.generate('files', { rest: 'a/b c' }), '/files/a/b%20c');
  });

  test('a generated path never starts with // and has no dot segments', () => {
    assert.equal(r.generate('root_files', { rest: ['', 'evil.com'] }), '/%2Fevil.com/raw');
    assert.equal(r.generate('files', { rest: ['..', 'etc'] }), '/files/%2E%2E/etc');
    assert.equal(r.generate('name', { name: '.' }), '/n/%2E');
  });

  test('extra parameters become the query string; defaults and null are skipped; _fragment', () => {
    assert.equal(r.generate('_profiler', { token: 'abc', panel: 'request', q: 'a b&c' }), '/_profiler/abc?panel=request&q=a%20b%26c');
    assert.equal(r.generate('archive', { year: '2024', x: null, y: undefined }), '/archive/2024');
    assert.equal(r.generate('blog', { page: '1' }), '/blog/1');
    assert.equal(r.generate('home', { ids: [1, 2], f: { a: 'b' } }), '/?ids%5B0%5D=1&ids%5B1%5D=2&f%5Ba%5D=b');
    assert.equal(r.generate('home', { _fragment: 'top section' }), '/#top%20section');
  });

  test('regression: an extra parameter equal to the route default only as a string (\'10\' for 10) went to the query string', () => {
    assert.equal(r.generate('list', { n: '10', sort: 'asc' }), '/list');
    assert.equal(r.generate('list', { n: 10 }), '/list');
    assert.equal(r.generate('list', { n: '11', sort: 'desc' }), '/list?n=11&sort=desc');
    assert.equal(r.generate('list', { n: [10] }), '/list?n%5B0%5D=10', 'an array is no scalar: never equal');
  });

  test('regression: an array parameter equal to an array default went to the query string; PHP\'s == (UrlGeneratorTest::testArrayQueryParamSameAsDefault) leaves it out', () => {
    const g = router(route('test', '/test', undefined, { defaults: { array: ['foo', 'bar'], nested: { a: { b: 1 } } } }));
    assert.equal(g.generate('test', { array: ['foo', 'bar'] }), '/test');
    assert.equal(g.generate('test', { array: { 1: 'bar', 0: 'foo' } }), '/test', 'keys in another order');
    assert.equal(g.generate('test', { nested: { a: { b: '1' } } }), '/test', 'values compared loosely at any depth');
    assert.equal(g.generate('test', { array: ['bar', 'foo'] }), '/test?array%5B0%5D=bar&array%5B1%5D=foo');
    assert.equal(g.generate('test', { array: { a: 'foo', b: 'bar' } }), '/test?array%5Ba%5D=foo&array%5Bb%5D=bar');
    assert.equal(g.generate('test', { array: ['foo'] }), '/test?array%5B0%5D=foo');
  });

  test('regression: a _fragment route default was ignored; Symfony\'s generator appends it unless one is given (testFragmentsCanBeDefinedAsDefaults)', () => {
    const g = router(route('test', '/testing', undefined, { defaults: { _fragment: 'fragment' } }));
    assert.equal(g.generate('test'), '/testing#fragment');
    assert.equal(g.generate('test', { _fragment: 'other' }), '/testing#other');
    assert.equal(g.generate('test', { _fragment: '' }), '/testing', 'an empty one given is no fragment');
    assert.equal(g.generate('test', { _fragment: null }), '/testing#fragment', 'null is not set (isset)');
  });

  test('regression: a boolean _fragment was written `#true` / `#false`; rawurlencode casts as PHP does, `#1` and no fragment', () => {
    const g = router(route('test', '/testing'));
    assert.equal(g.generate('test', { _fragment: true }), '/testing#1');
    assert.equal(g.generate('test', { _fragment: false }), '/testing');
    assert.equal(router(route('flag', '/flag', undefined, { defaults: { _fragment: true } })).generate('flag'), '/flag#1');
  });

  test('context parameters (the router context\'s _locale) fill path variables the caller left out, never the query string', () => {
    assert.equal(r.generate('localized', {}, { context: { _locale: 'fr' } }), '/fr/about');
    assert.equal(r.generate('localized', { _locale: 'de' }, { context: { _locale: 'fr' } }), '/de/about', 'the caller\'s value wins');
    assert.equal(r.generate('home', {}, { context: { _locale: 'fr' } }), '/');
    assert.throws(() => r.generate('localized'), /mandatory parameters are missing \("_locale"\)/);
  });

  test('regression: a "/" in a one-segment variable was generated as %2F (a URL no route matches since the encoded-slash fix); Symfony refuses it', () => {
    assert.throws(() => r.generate('name', { name: 'a/b' }), (e: unknown) => (e as Error).message === 'Parameter "name" for route "name" must match "[^/]++" ("a/b" given) to generate a corresponding URL.');
  });

  test('regression: a sparse array in the query or a wildcard threw a TypeError; its holes are skipped as http_build_query has none', () => {
    // eslint-disable-next-line no-sparse-arrays
    assert.equal(r.generate('member', { id: '1', a: [1, , 3] }), '/members/1?a%5B0%5D=1&a%5B2%5D=3');
    // eslint-disable-next-line no-sparse-arrays
    assert.equal(r.generate('files', { rest: ['x', , 'z'] }), '/files/x/z');
  });

  test('generate and match round-trip', () => {
    for (const [name, params] of [
      ['member', { id: '7' }],
      ['name', { name: 'a b c%' }],
      ['files', { rest: ['x', 'y z', 'caf\u00e9'] }],
      ['blog', { page: '2' }],
    ] as const) {
      const url = r.generate(name, params);
      const m = r.match(url, 'GET');
      assert.equal(m.route.name, name, url);
      for (const [k, v] of Object.entries(params)) assert.deepEqual(m.params[k], v, url);
    }
  });
});

describe('Symfony 5.4 UrlGenerator::doGenerate parity', () => {
  test('regression: an empty value for a mandatory variable was reported missing; Symfony checks it against the requirement (InvalidParameterException, testRequiredParamAndEmptyPassed)', () => {
    const g = router(route('slug', '/:slug', undefined, { requirements: { slug: '.+' } }), route('profile', '/_profiler/:token'));
    assert.throws(() => g.generate('slug', { slug: '' }), (e: unknown) => e instanceof InvalidParameterException && e.message === 'Parameter "slug" for route "slug" must match ".+" ("" given) to generate a corresponding URL.');
    assert.throws(() => g.generate('profile', { token: '' }), (e: unknown) => e instanceof InvalidParameterException && e.message === 'Parameter "token" for route "profile" must match "[^/]++" ("" given) to generate a corresponding URL.');
    assert.throws(() => g.generate('profile', {}), (e: unknown) => e instanceof MissingMandatoryParametersException, 'absent is still missing');
  });

  test('regression: a mandatory variable given as null (or with a null default) was reported missing or took the default; Symfony\'s array_replace keeps the null, which fails the requirement (InvalidParameterException, testRelativeUrlWithNullParameterButNotOptional)', () => {
    const g = router(
      route('user', '/user/:id'),
      route('archive', '/archive/:year/posts', undefined, { defaults: { year: '2024' }, requirements: { year: '\\d+' } }),
      route('nulldefault', '/testing/:foo/bar', undefined, { defaults: { foo: null } }),
      route('localized', '/:_locale/about'),
      route('blog', '/blog{/:page}'),
    );
    const invalid = (message: string) => (e: unknown) => e instanceof InvalidParameterException && e.message === message;
    assert.throws(() => g.generate('user', { id: null }), invalid('Parameter "id" for route "user" must match "[^/]++" ("" given) to generate a corresponding URL.'));
    assert.throws(() => g.generate('archive', { year: null }), invalid('Parameter "year" for route "archive" must match "\\d+" ("" given) to generate a corresponding URL.'), 'null overrides the default');
    assert.throws(() => g.generate('nulldefault'), invalid('Parameter "foo" for route "nulldefault" must match "[^/]++" ("" given) to generate a corresponding URL.'));
    assert.throws(() => g.generate('localized', { _locale: null }, { context: { _locale: 'fr' } }), InvalidParameterException, 'null overrides the context');
    assert.equal(g.generate('blog', { page: null }), '/blog', 'an optional variable that is null is left out');
    assert.equal(g.generate('archive'), '/archive/2024/posts', 'absent still takes the default');
    assert.equal(g.generate('localized', { _locale: undefined }, { context: { _locale: 'fr' } }), '/fr/about', 'undefined is not given');
    assert.throws(() => g.generate('user', {}), MissingMandatoryParametersException, 'absent is still missing');
  });

  test('regression: an object with its own toString (an id class, a URL) was refused in a path and dropped from the query; PHP converts a __toString object (doGenerate\'s caster)', () => {
    class Slug {
      readonly #value: string;
      constructor(value: string) {
        this.#value = value;
      }
      toString(): string {
        return this.#value;
      }
    }
    const g = router(route('post', '/post/:slug', undefined, { requirements: { slug: '[a-z-]+' } }), route('login', '/login'));
    assert.equal(g.generate('post', { slug: new Slug('hello-world') }), '/post/hello-world');
    assert.throws(() => g.generate('post', { slug: new Slug('Hello World') }), InvalidParameterException, 'checked as its string');
    assert.equal(g.generate('login', { next: new URL('https://shop.example/cart?x=1'), tag: new Slug('a b') }), '/login?next=https%3A%2F%2Fshop.example%2Fcart%3Fx%3D1&tag=a%20b');
    assert.equal(g.generate('login', { f: { a: new Slug('b') } }), '/login?f%5Ba%5D=b', 'nested too');
    assert.equal(g.generate('login', { o: { x: 1 } }), '/login?o%5Bx%5D=1', 'public properties win (get_object_vars)');
    assert.throws(() => g.generate('post', { slug: { x: 1 } }), (e: unknown) => e instanceof InvalidParameterException && /must be a scalar/.test(e.message), 'a plain object is still refused');
  });

  test('regression: missing variables are reported before an invalid one, and of two invalid ones the last in the path, as doGenerate checks them', () => {
    const g = router(route('pair', '/p/:a/:b/:c', undefined, { requirements: { a: '\\d+', b: '\\d+' } }));
    assert.throws(() => g.generate('pair', { a: 'x', b: 1 }), (e: unknown) => e instanceof MissingMandatoryParametersException && /\("c"\)/.test(e.message));
    assert.throws(() => g.generate('pair', { a: 'x', b: 'y', c: 1 }), (e: unknown) => e instanceof InvalidParameterException && /Parameter "b"/.test(e.message));
  });

  test('regression: a boolean path value was written "true"/"false"; PHP writes true as "1" and false as "" (then refused as empty)', () => {
    const g = router(route('flag', '/flag/:on'), route('page', '/page{/:n}'));
    assert.equal(g.generate('flag', { on: true }), '/flag/1');
    assert.throws(() => g.generate('flag', { on: false }), (e: unknown) => e instanceof InvalidParameterException && e.message.endsWith('("" given) to generate a corresponding URL.'));
    assert.equal(g.generate('page', { n: false }), '/page', 'an optional group is left out');
  });

  test('regression: the generator checked requirements case-sensitively and with their look-arounds; Symfony\'s check is `#^…$#i` without look-arounds', () => {
    const g = router(
      route('lang', '/lang/:code', undefined, { requirements: { code: '[a-z]{2}' } }),
      route('user', '/u/:name', undefined, { requirements: { name: '(?!admin\\b)[a-z]+' } }),
      route('word', '/w/:w', undefined, { requirements: { w: '\\p{Ll}+' } }),
    );
    assert.equal(g.generate('lang', { code: 'EN' }), '/lang/EN');
    assert.equal(g.generate('user', { name: 'admin' }), '/u/admin');
    assert.equal(g.generate('word', { w: '\u00e9t\u00e9' }), '/w/%C3%A9t%C3%A9', 'the u flag kept');
    assert.throws(() => g.generate('lang', { code: 'eng' }), InvalidParameterException);
    // Matching stays case-sensitive, look-arounds included.
    assert.throws(() => g.match('/lang/EN', 'GET'));
    assert.throws(() => g.match('/u/admin', 'GET'));
  });

  test('regression: an extra parameter equal to its default under PHP\'s == but not as a string (\'01\' for 1, 0 for false) went to the query string', () => {
    const g = router(route('list', '/list', undefined, { defaults: { page: 1, preview: false, size: '10' } }));
    assert.equal(g.generate('list', { page: '01', preview: 0, size: '1e1' }), '/list');
    assert.equal(g.generate('list', { preview: '' }), '/list');
    assert.equal(g.generate('list', { page: '1abc', preview: 'no', size: 'ten' }), '/list?page=1abc&preview=no&size=ten', '\'no\' is true; non-numeric strings compare as strings');
  });

  test('regression: the fragment left & = + $ \' ( ) raw; Symfony\'s QUERY_FRAGMENT_DECODED leaves only / ? @ : ! ; , * readable', () => {
    const g = router(route('page', '/page'));
    assert.equal(g.generate('page', { _fragment: "a=1&b=2+c$d'(e)" }), '/page#a%3D1%26b%3D2%2Bc%24d%27%28e%29');
    assert.equal(g.generate('page', { _fragment: '/x?y@z:w!v;u,t*s #' }), '/page#/x?y@z:w!v;u,t*s%20%23');
  });

  test('regression: a route path starting with "//" served only "//x" and generated "/%2Fx", which matched nothing; Route::setPath makes it "/x"', () => {
    const g = router(route('double', '//x'), route('spaced', ' /y '), route('deep', '///z/:id'));
    expectMatch(g, '/x', 'GET', 'double');
    expectMatch(g, '/y', 'GET', 'spaced');
    assert.equal(g.generate('double'), '/x');
    assert.equal(g.generate('deep', { id: 3 }), '/z/3');
    expectMatch(g, '/z/3', 'GET', 'deep');
    assert.equal(g.get('double')!.path, '/x');
    assert.throws(() => router(route('rel', 'x')), /must start with "\/"/);
  });

  test('regression: a lone surrogate (a title cut inside an emoji) crashed URL generation with URIError "URI malformed"', () => {
    const cut = 'Party 🎉'.slice(0, 7); // ends with the emoji's high surrogate
    // Query, key and fragment: written as U+FFFD, as http_build_query and rawurlencode write any bytes.
    assert.equal(r.generate('home', { q: cut }), '/?q=Party%20%EF%BF%BD');
    assert.equal(r.generate('home', { [cut]: 1 }), '/?Party%20%EF%BF%BD=1');
    assert.equal(r.generate('home', { f: { [cut]: 1 } }), '/?f%5BParty%20%EF%BF%BD%5D=1');
    assert.equal(r.generate('home', { _fragment: cut }), '/#Party%20%EF%BF%BD');
    // Path: UrlGenerator's requirement check (`u`, the utf8 recipe) refuses the value.
    assert.throws(() => r.generate('name', { name: cut }), (e: unknown) => e instanceof InvalidParameterException && /must match "\[\^\/\]\+\+"/.test(e.message));
    assert.throws(() => r.generate('files', { rest: ['a', cut] }), InvalidParameterException);
  });

  test('regression: an extra parameter empty under PHP\'s == null (\'\', 0, false, []) went to the query string when its default is null', () => {
    const g = router(route('search', '/search', ['GET'], { defaults: { sort: null } }));
    assert.equal(g.generate('search', { sort: '' }), '/search');
    assert.equal(g.generate('search', { sort: 0 }), '/search');
    assert.equal(g.generate('search', { sort: false }), '/search');
    // '0' == null is false in PHP (null compares with a string as ''), so it stays, as any other value.
    assert.equal(g.generate('search', { sort: '0' }), '/search?sort=0');
    assert.equal(g.generate('search', { sort: 'price' }), '/search?sort=price');
  });
});

describe('generation errors', () => {
  test('regression: URL generation threw plain Errors; they are Symfony\'s RouteNotFoundException, MissingMandatoryParametersException and InvalidParameterException, catchable by type', () => {
    const g = router(route('member', '/members/:id', undefined, { requirements: { id: '\\d+' } }));
    assert.throws(() => g.generate('nope'), (e: unknown) => e instanceof RouteNotFoundException && e.message === 'Unable to generate a URL for the named route "nope" as such route does not exist.');
    assert.throws(() => g.generate('member'), (e: unknown) => e instanceof MissingMandatoryParametersException && /mandatory parameters are missing \("id"\)/.test(e.message));
    assert.throws(() => g.generate('member', { id: 'x' }), (e: unknown) => e instanceof InvalidParameterException && /must match "\\d\+" \("x" given\)/.test(e.message));
    for (const Class of [RouteNotFoundException, MissingMandatoryParametersException, InvalidParameterException]) assert.equal(Class.className, Class.name);
  });
});
