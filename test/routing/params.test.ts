/** Path parameters: decoding, defaults, requirements, optional groups and wildcards. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Router } from '../../src/routing/router.ts';
import { expectMatch, expectMethodNotAllowed, expectNotFound, expectRedirect, route, router } from './helpers.ts';

describe('decoding', () => {
  const r = router(route('member', '/members/:id'), route('files', '/files/*rest'));

  test('parameter values are decoded with decodeURIComponent; matching is on the raw path', () => {
    assert.deepEqual(expectMatch(r, '/members/caf%C3%A9', 'GET', 'member').params, { id: 'café' });
    assert.deepEqual(expectMatch(r, '/members/a+b%20c', 'GET', 'member').params, { id: 'a+b c' });
    assert.deepEqual(expectMatch(r, '/members/%25', 'GET', 'member').params, { id: '%' });
  });

  test('regression: an encoded slash put a "/" in a one-segment variable (/download/..%2F..%2Fetc%2Fpasswd reached the controller as ../../etc/passwd)', () => {
    const d = router(route('download', '/download/:file'), route('any', '/raw/:path', undefined, { requirements: { path: '.+' } }));
    for (const path of ['/download/..%2F..%2Fetc%2Fpasswd', '/download/a%2Fb', '/download/a%2fb']) expectNotFound(d, path, 'GET', `No routes found for "${path}/".`);
    assert.deepEqual(expectMatch(d, '/download/a%2Cb', 'GET', 'download').params, { file: 'a,b' });
    assert.deepEqual(expectMatch(d, '/raw/a%2Fb', 'GET', 'any').params, { path: 'a/b' }, 'a requirement of the route may allow it, as in Symfony');
  });

  test('wildcards give the decoded segments, as path-to-regexp does', () => {
    assert.deepEqual(expectMatch(r, '/files/a/b%20c/d', 'GET', 'files').params, { rest: ['a', 'b c', 'd'] });
    assert.deepEqual(expectMatch(r, '/files/x', 'GET', 'files').params, { rest: ['x'] });
    // a wildcard swallows a trailing slash: an exact match, no redirect
    assert.deepEqual(expectMatch(r, '/files/x/', 'GET', 'files').params, { rest: ['x', ''] });
  });

  test('escapes that are no UTF-8 make that route not match (later routes still tried), never a URIError', () => {
    const r2 = router(route('strict', '/m/:id'), route('fallback', '/m/%E0%A4%A'), route('later', '/:x/:y'));
    expectMatch(r2, '/m/%E0%A4%A', 'GET', 'fallback');
    for (const bad of ['/members/%E0%A4%A', '/members/%C0', '/files/ok/%C0', '/members/%ED%A0%80', '/members/%FF%zz']) {
      for (const method of ['GET', 'POST']) {
        assert.throws(() => r.match(bad, method), (e: unknown) => !(e instanceof URIError) && (e as Error).message.startsWith('No routes found'));
      }
    }
  });

  test('regression: a "%" that starts no escape (/search/100%, %zz) made the route miss (404); rawurldecode keeps it, so Symfony matches', () => {
    const r2 = router(route('search', '/search/:q'), route('files', '/files/*rest'));
    assert.deepEqual(expectMatch(r2, '/search/100%', 'GET', 'search').params, { q: '100%' });
    assert.deepEqual(expectMatch(r2, '/search/%zz%41', 'GET', 'search').params, { q: '%zzA' });
    assert.deepEqual(expectMatch(r2, '/search/50%25%', 'GET', 'search').params, { q: '50%%' });
    assert.deepEqual(expectMatch(r2, '/files/%/a%2', 'GET', 'files').params, { rest: ['%', 'a%2'] });
  });

  test('route literals with non-ASCII text match the percent-encoded raw path', () => {
    const r2 = router(route('cafe', '/café'), route('space', '/a b/:x'));
    expectMatch(r2, '/caf%C3%A9', 'GET', 'cafe');
    assert.deepEqual(expectMatch(r2, '/a%20b/1', 'GET', 'space').params, { x: '1' });
    expectNotFound(r2, '/café', 'POST', 'No routes found for "/café".');
  });

  test('params is a fresh plain object each time', () => {
    const r2 = router(route('d', '/d/:id', undefined, { defaults: { list: 'x' } }));
    const first = r2.match('/d/1', 'GET').params;
    first.id = 'mutated';
    first.extra = true;
    assert.deepEqual(r2.match('/d/1', 'GET').params, { list: 'x', id: '1' });
    assert.equal(Object.getPrototypeOf(first), Object.prototype);
  });
});

describe('defaults', () => {
  test('defaults are merged with path parameters, path parameters win', () => {
    const r = router(route('blog', '/blog{/:page}', ['GET'], { defaults: { page: '1', _format: 'html' } }));
    assert.deepEqual(expectMatch(r, '/blog', 'GET', 'blog').params, { page: '1', _format: 'html' });
    assert.deepEqual(expectMatch(r, '/blog/3', 'GET', 'blog').params, { page: '3', _format: 'html' });
  });

  test('static routes return their defaults', () => {
    const r = router(route('home', '/', undefined, { defaults: { template: 'home.html', n: 2 } }));
    assert.deepEqual(expectMatch(r, '/', 'GET', 'home').params, { template: 'home.html', n: 2 });
    assert.deepEqual(router(route('plain', '/plain')).match('/plain', 'GET').params, {});
  });

  test('later mutation of the definition does not change compiled defaults', () => {
    const defaults: Record<string, unknown> = { a: 1 };
    const r = new Router([route('x', '/x', undefined, { defaults })]);
    defaults.a = 2;
    assert.deepEqual(r.match('/x', 'GET').params, { a: 1 });
  });

  test('optional groups', () => {
    const r = router(route('lang', '{/:lang}/about'), route('multi', '/m{/:a}{/:b}'));
    assert.deepEqual(expectMatch(r, '/about', 'GET', 'lang').params, {});
    assert.deepEqual(expectMatch(r, '/fr/about', 'GET', 'lang').params, { lang: 'fr' });
    assert.deepEqual(expectMatch(r, '/m', 'GET', 'multi').params, {});
    assert.deepEqual(expectMatch(r, '/m/1', 'GET', 'multi').params, { a: '1' });
    assert.deepEqual(expectMatch(r, '/m/1/2', 'GET', 'multi').params, { a: '1', b: '2' });
  });
});

describe('requirements', () => {
  test('a failed requirement means that route does not match; later routes are tried', () => {
    const r = router(route('byId', '/m/:id', ['GET'], { requirements: { id: '\\d+' } }), route('bySlug', '/m/:slug', ['GET']));
    assert.deepEqual(expectMatch(r, '/m/42', 'GET', 'byId').params, { id: '42' });
    assert.deepEqual(expectMatch(r, '/m/42a', 'GET', 'bySlug').params, { slug: '42a' });
  });

  test('requirements are anchored (full match), including alternations', () => {
    const r = router(route('ab', '/x/:v', undefined, { requirements: { v: 'a|b' } }));
    expectMatch(r, '/x/a', 'GET', 'ab');
    expectMatch(r, '/x/b', 'GET', 'ab');
    for (const v of ['ab', 'ba', 'xa', 'bx', 'aa']) expectNotFound(r, `/x/${v}`, 'POST', `No routes found for "/x/${v}".`);
  });

  test('requirements test the decoded value', () => {
    const r = router(route('sp', '/s/:v', undefined, { requirements: { v: '[a-z ]+' } }), route('pct', '/p/:v', undefined, { requirements: { v: '%41' } }));
    expectMatch(r, '/s/a%20b', 'GET', 'sp');
    expectMatch(r, '/p/%2541', 'POST', 'pct'); // decoded '%41' meets '%41'; the raw '%2541' would not
    expectNotFound(r, '/p/%41', 'POST', 'No routes found for "/p/%41".'); // decoded 'A'; the raw '%41' would
  });

  test('RegExp requirements keep their flags (but not g/y, so matching is stateless)', () => {
    const r = router(
      route('ci', '/ci/:v', undefined, { requirements: { v: /[a-z]+/i } }),
      route('g', '/g/:v', undefined, { requirements: { v: /\d+/g } }),
    );
    expectMatch(r, '/ci/ABC', 'GET', 'ci');
    for (let i = 0; i < 3; i++) expectMatch(r, '/g/123', 'GET', 'g');
  });

  test('regression: a string requirement naming Unicode properties (\\p{L}+, PCRE\'s \\pL) matched the letters "p{L}"; it is compiled with the u flag, as Symfony\'s utf8 routes', () => {
    const r = router(
      route('word', '/word/:w', undefined, { requirements: { w: '\\p{L}+' } }),
      route('short', '/short/:w', undefined, { requirements: { w: '[\\pL\\pN-]+' } }),
      route('escaped', '/escaped/:w', undefined, { requirements: { w: '\\\\p\\{L\\}' } }),
    );
    expectMatch(r, '/word/caf%C3%A9', 'GET', 'word');
    expectMatch(r, '/word/abc', 'GET', 'word');
    expectNotFound(r, '/word/p%7BL%7D', 'GET', 'No routes found for "/word/p%7BL%7D/".');
    expectMatch(r, '/short/%C3%A9t%C3%A9-2024', 'GET', 'short');
    expectNotFound(r, '/short/a_b', 'GET', 'No routes found for "/short/a_b/".');
    // A backslash that is itself escaped is no property escape: `\\p\{L\}` is the text "\p{L}".
    expectMatch(r, '/escaped/%5Cp%7BL%7D', 'GET', 'escaped');
    assert.equal(r.generate('word', { w: 'été' }), '/word/%C3%A9t%C3%A9');
    assert.throws(() => r.generate('word', { w: '42' }), /must match "\\p\{L\}\+" \("42" given\)/);
  });

  test('regression: a string requirement counted an emoji as two characters ([^/]{1,3} refused three emoji); Symfony\'s utf8 routes compile every requirement with u', () => {
    const r = router(
      route('tag', '/tag/:t', undefined, { requirements: { t: '[^/]{1,3}' } }),
      route('one', '/one/:c', undefined, { requirements: { c: '.' } }),
      route('pcre', '/pcre/:w', undefined, { requirements: { w: '[a-z\\_]+' } }),
    );
    const three = encodeURIComponent('😀😀😀');
    assert.deepEqual(expectMatch(r, `/tag/${three}`, 'GET', 'tag').params, { t: '😀😀😀' });
    expectNotFound(r, `/tag/${three}x`, 'GET', `No routes found for "/tag/${three}x/".`);
    expectMatch(r, `/one/${encodeURIComponent('🎉')}`, 'GET', 'one');
    assert.equal(r.generate('tag', { t: '😀😀' }), `/tag/${encodeURIComponent('😀😀')}`);
    // A pattern PCRE accepts but the u flag refuses (\_) still builds and matches as before.
    expectMatch(r, '/pcre/a_b', 'GET', 'pcre');
  });

  test('regression: a "." in a string requirement refused a newline (.+ on a%0Ab was a 404); RouteCompiler compiles route regexes with the s modifier', () => {
    const r = router(
      route('note', '/note/:text', undefined, { requirements: { text: '.+' } }),
      route('word', '/word/:w', undefined, { requirements: { w: '\\p{L}.' } }),
    );
    assert.deepEqual(expectMatch(r, '/note/a%0Ab', 'GET', 'note').params, { text: 'a\nb' });
    assert.deepEqual(expectMatch(r, '/word/a%0A', 'GET', 'word').params, { w: 'a\n' });
    assert.equal(r.generate('note', { text: 'a b' }), '/note/a%20b');
    // UrlGenerator::doGenerate checks with `#^…$#iu`, no s: it refuses the newline it would match.
    assert.throws(() => r.generate('note', { text: 'a\nb' }), /must match "\.\+"/);
  });

  test('regression: a RegExp requirement with the m flag matched one line of the value (/\\d+/m accepted 1%0A<script>)', () => {
    const r = router(route('item', '/item/:id', undefined, { requirements: { id: /\d+/m } }));
    expectMatch(r, '/item/12', 'GET', 'item');
    expectNotFound(r, '/item/1%0A%3Cscript%3E', 'GET', 'No routes found for "/item/1%0A%3Cscript%3E/".');
    assert.throws(() => r.generate('item', { id: '1\n<script>' }), /must match/);
  });

  test('regression: \\A and \\z anchors made a requirement match the letters A and z; they are dropped as Route::sanitizeRequirement drops them, and an empty requirement is refused', () => {
    const r = router(route('id', '/id/:id', undefined, { requirements: { id: '\\A\\d+\\z' } }), route('caret', '/c/:id', undefined, { requirements: { id: '^\\d+$' } }));
    expectMatch(r, '/id/12', 'GET', 'id');
    expectNotFound(r, '/id/A12z', 'GET', 'No routes found for "/id/A12z/".');
    expectMatch(r, '/c/12', 'GET', 'caret');
    assert.throws(() => router(route('empty', '/e/:x', undefined, { requirements: { x: '' } })), { message: 'Routing requirement for "x" of route "empty" cannot be empty.' });
    assert.throws(() => router(route('anchors', '/e/:x', undefined, { requirements: { x: '^$' } })), /cannot be empty/);
  });

  test('wildcard requirements see the decoded segments joined with "/"', () => {
    const r = router(route('w', '/w/*rest', undefined, { requirements: { rest: '[a-z]+(/[a-z]+)*' } }), route('other', '/w/*any'));
    expectMatch(r, '/w/a/b', 'GET', 'w');
    expectMatch(r, '/w/a/B', 'GET', 'other');
  });

  test('requirement on a redirect target: the toggled path must meet it too', () => {
    const r = router(route('id', '/m/:id/', ['GET'], { requirements: { id: '\\d+' } }));
    expectRedirect(r, '/m/12', 'GET', 'id', '/m/12/');
    expectNotFound(r, '/m/ab', 'GET', 'No routes found for "/m/ab/".');
  });

  test('a requirement failure does not contribute to the Allow list', () => {
    const r = router(route('id', '/m/:id', ['POST'], { requirements: { id: '\\d+' } }), route('put', '/m/:x', ['PUT']));
    expectMethodNotAllowed(r, '/m/12', 'GET', ['POST', 'PUT']);
    expectMethodNotAllowed(r, '/m/ab', 'GET', ['PUT']);
  });

  test('requirements for names that are not path variables are ignored', () => {
    const r = router(route('x', '/x/:id', undefined, { requirements: { other: '\\d+' } }));
    expectMatch(r, '/x/abc', 'GET', 'x');
  });

  test('requirements are compiled at construction, never per request', () => {
    const r = router(
      route('id', '/m/:id', ['GET'], { requirements: { id: '\\d+' } }),
      route('w', '/w/*rest', undefined, { requirements: { rest: '.+' } }),
      route('s', '/static'),
    );
    const Original = globalThis.RegExp;
    let constructed = 0;
    globalThis.RegExp = new Proxy(Original, {
      construct(target, args) {
        constructed++;
        return Reflect.construct(target, args);
      },
      apply(target, thisArg, args) {
        constructed++;
        return Reflect.apply(target, thisArg, args);
      },
    });
    try {
      r.match('/m/1', 'GET');
      r.match('/w/a/b', 'GET');
      r.match('/static', 'GET');
      r.match('/static/', 'GET');
      assert.throws(() => r.match('/m/x', 'GET'));
      assert.throws(() => r.match('/m/1', 'POST'));
      r.explain('/m/1', 'GET');
    } finally {
      globalThis.RegExp = Original;
    }
    assert.equal(constructed, 0);
  });
});
