/** URL reference types at the router: relative paths (relativeTo) and network paths (a `//host` absoluteBase). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { relativePath, UrlGeneratorInterface } from '../../src/routing/router.ts';
import { route, router } from './helpers.ts';

describe('UrlGeneratorInterface', () => {
  test('has Symfony\'s numbers and cannot be changed', () => {
    assert.deepEqual({ ...UrlGeneratorInterface }, { ABSOLUTE_URL: 0, ABSOLUTE_PATH: 1, RELATIVE_PATH: 2, NETWORK_PATH: 3 });
    assert.ok(Object.isFrozen(UrlGeneratorInterface));
  });
});

describe('relativePath(base, target)', () => {
  // Symfony's UrlGeneratorTest::provideRelativePaths, every row: [base path, target path, expected].
  const rows: ReadonlyArray<readonly [string, string, string]> = [
    ['/same/dir/', '/same/dir/', ''],
    ['/same/file', '/same/file', ''],
    ['/', '/file', 'file'],
    ['/', '/dir/file', 'dir/file'],
    ['/dir/file.html', '/dir/different-file.html', 'different-file.html'],
    ['/same/dir/extra-file', '/same/dir/', './'],
    ['/parent/dir/', '/parent/', '../'],
    ['/parent/dir/extra-file', '/parent/', '../'],
    ['/a/b/', '/x/y/z/', '../../x/y/z/'],
    ['/a/b/c/d/e', '/a/c/d', '../../../c/d'],
    ['/a/b/c//', '/a/b/c/', '../'],
    ['/a/b/c/', '/a/b/c//', './/'],
    ['/root/a/b/c/', '/root/x/b/c/', '../../../x/b/c/'],
    ['/a/b/c/d/', '/a', '../../../../a'],
    ['/special-chars/sp%20ce/1€/mäh/e=mc²', '/special-chars/sp%20ce/1€/<µ>/e=mc²', '../<µ>/e=mc²'],
    ['not-rooted', 'dir/file', 'dir/file'],
    ['//dir/', '', '../../'],
    ['/dir/', '/dir/file:with-colon', './file:with-colon'],
    ['/dir/', '/dir/subdir/file:with-colon', 'subdir/file:with-colon'],
    ['/dir/', '/dir/:subdir/', './:subdir/'],
  ];
  for (const [base, target, expected] of rows) {
    test(`${JSON.stringify(base)} → ${JSON.stringify(target)} is ${JSON.stringify(expected)}`, () => {
      assert.equal(relativePath(base, target), expected);
    });
  }

  test('a colon with no slash after it also gets ./ (it would read as a scheme)', () => {
    assert.equal(relativePath('/dir/', '/dir/a:b'), './a:b');
    assert.equal(relativePath('/x/y', '/x/sub/a:b'), 'sub/a:b');
  });
});

describe('generate() with relativeTo (RELATIVE_PATH)', () => {
  // Symfony's UrlGeneratorTest::testGenerateRelativePath routes, seen from /fabien/symfony-is-great/.
  const r = router(
    route('article', '/:author/:article/'),
    route('comments', '/:author/:article/comments'),
    route('unrelated', '/about'),
    route('name', '/n/:name'),
    route('dir', '/dir/:x'),
  );
  const from = { relativeTo: '/fabien/symfony-is-great/' };

  test('paths relative to the base path info', () => {
    assert.equal(r.generate('comments', { author: 'fabien', article: 'symfony-is-great' }, from), 'comments');
    assert.equal(r.generate('article', { author: 'fabien', article: 'twig-is-great' }, from), '../twig-is-great/');
    assert.equal(r.generate('article', { author: 'bernhard', article: 'forms-are-great' }, from), '../../bernhard/forms-are-great/');
    assert.equal(r.generate('unrelated', {}, from), '../../about');
  });

  test('the query string and fragment come after the relative path, even an empty one', () => {
    assert.equal(r.generate('comments', { author: 'fabien', article: 'symfony-is-great', page: 2 }, from), 'comments?page=2');
    assert.equal(r.generate('comments', { author: 'fabien', article: 'symfony-is-great', _fragment: 'frag ment' }, from), 'comments#frag%20ment');
    assert.equal(r.generate('unrelated', { page: 2, _fragment: 'top' }, from), '../../about?page=2#top');
    assert.equal(r.generate('unrelated', {}, { relativeTo: '/about' }), '');
    assert.equal(r.generate('unrelated', { page: 2, _fragment: 'top' }, { relativeTo: '/about' }), '?page=2#top');
  });

  test('compared on the encoded path: the base is a raw path info', () => {
    assert.equal(r.generate('name', { name: 'a b' }, { relativeTo: '/n/a%20b' }), '');
    assert.equal(r.generate('name', { name: 'a b' }, { relativeTo: '/n/other' }), 'a%20b');
    assert.equal(r.generate('name', { name: 'a b' }, { relativeTo: '/n/a b' }), 'a%20b', 'a decoded base is another file');
  });

  test('made relative after the dot segments are encoded, so that a client cannot resolve them', () => {
    assert.equal(r.generate('dir', { x: '..' }, { relativeTo: '/dir/file' }), '%2E%2E');
    assert.equal(r.generate('dir', { x: '.' }, { relativeTo: '/' }), 'dir/%2E');
  });

  test('absoluteBase is refused beside relativeTo; an empty absoluteBase is no base', () => {
    assert.throws(() => r.generate('unrelated', {}, { relativeTo: '/', absoluteBase: 'http://example.com' }), {
      name: 'TypeError',
      message: 'Router.generate: relativeTo and absoluteBase exclude each other (a relative path has no scheme or host).',
    });
    assert.equal(r.generate('unrelated', {}, { relativeTo: '/', absoluteBase: '' }), 'about');
  });
});

describe('generate() with a network-path base (NETWORK_PATH)', () => {
  const r = router(route('member', '/members/:id'), route('home', '/'));

  test('the authority is written without a scheme; query and fragment stay last', () => {
    assert.equal(r.generate('member', { id: 7 }, { absoluteBase: '//example.test:8080' }), '//example.test:8080/members/7');
    assert.equal(r.generate('member', { id: 7, page: 2, _fragment: 'top' }, { absoluteBase: '//example.test' }), '//example.test/members/7?page=2#top');
    assert.equal(r.generate('home', {}, { absoluteBase: '//example.test/' }), '//example.test/');
  });

  test('absolute URLs are unchanged', () => {
    assert.equal(r.generate('member', { id: 7, _fragment: 'top' }, { absoluteBase: 'https://example.test' }), 'https://example.test/members/7#top');
  });
});
