/** request.generateUrl with Symfony's four reference types, through createApp(...).fetch. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, UrlGeneratorInterface, type KernelRequest } from '../../src/index.ts';
import { quietApp } from '../support/app.ts';

const { ABSOLUTE_URL, ABSOLUTE_PATH, RELATIVE_PATH, NETWORK_PATH } = UrlGeneratorInterface;

/** The four URLs of one post, plus the older options object and a query string with a fragment. */
function links(r: KernelRequest) {
  return HttpResponse.json({
    absoluteUrl: r.generateUrl('post', { id: 7 }, ABSOLUTE_URL),
    absolutePath: r.generateUrl('post', { id: 7 }, ABSOLUTE_PATH),
    relativePath: r.generateUrl('post', { id: 7 }, RELATIVE_PATH),
    networkPath: r.generateUrl('post', { id: 7 }, NETWORK_PATH),
    relativeWithQuery: r.generateUrl('post', { id: 7, page: 2, _fragment: 'top' }, RELATIVE_PATH),
    networkWithQuery: r.generateUrl('post', { id: 7, page: 2, _fragment: 'top' }, NETWORK_PATH),
    absoluteOption: r.generateUrl('post', { id: 7 }, { absolute: true }),
    noOption: r.generateUrl('post', { id: 7 }),
  });
}

/** Each refused third argument and what generateUrl threw for it. */
function refusals(r: KernelRequest) {
  const refused: Record<string, string> = {};
  for (const [label, value] of [['4', 4], ['-1', -1], ['1.5', 1.5], ['NaN', NaN], ["'1'", '1'], ['true', true], ['null', null]] as const) {
    try {
      r.generateUrl('post', { id: 7 }, value as never);
      refused[label] = 'accepted';
    } catch (error) {
      refused[label] = `${(error as Error).name}: ${(error as Error).message}`;
    }
  }
  return HttpResponse.json(refused);
}

const app = quietApp({
  routes: [
    { name: 'post', path: '/posts/:id', controller: (r) => links(r) },
    { name: 'nested', path: '/a/b/c', controller: (r) => links(r) },
    { name: 'page', path: '/p/:name', controller: (r) => HttpResponse.json({ self: r.generateUrl('page', { name: r.attributes.get('name') }, RELATIVE_PATH), post: r.generateUrl('post', { id: 'x y' }, RELATIVE_PATH) }) },
    { name: 'refusals', path: '/refusals', controller: (r) => refusals(r) },
    {
      name: 'refused_host',
      path: '/refused-host',
      controller: (r) => {
        // A Host the request refused reads as '' afterwards (as on Symfony's error pages).
        // The port stays readable, so without the host check this would be `//:8080/posts/7`.
        r.headers.set('host', 'bad host:8080');
        assert.throws(() => r.getHost());
        return HttpResponse.json({
          networkPath: r.generateUrl('post', { id: 7 }, NETWORK_PATH),
          absoluteUrl: r.generateUrl('post', { id: 7 }, ABSOLUTE_URL),
          absoluteOption: r.generateUrl('post', { id: 7 }, { absolute: true }),
        });
      },
    },
  ],
});

async function get(url: string, host?: string): Promise<Record<string, string>> {
  const response = await app.fetch(new Request(url, host === undefined ? {} : { headers: { host } }));
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as Record<string, string>;
}

test('from /a/b/c on example.test:8080: the four reference types, with query and fragment last', async () => {
  assert.deepEqual(await get('http://example.test:8080/a/b/c', 'example.test:8080'), {
    absoluteUrl: 'http://example.test:8080/posts/7',
    absolutePath: '/posts/7',
    relativePath: '../../posts/7',
    networkPath: '//example.test:8080/posts/7',
    relativeWithQuery: '../../posts/7?page=2#top',
    networkWithQuery: '//example.test:8080/posts/7?page=2#top',
    absoluteOption: 'http://example.test:8080/posts/7',
    noOption: '/posts/7',
  });
});

test('from the target itself the relative path is empty, and from its directory the file name', async () => {
  const fromSelf = await get('http://example.test/posts/7');
  assert.equal(fromSelf.relativePath, '');
  assert.equal(fromSelf.relativeWithQuery, '?page=2#top');
  assert.equal((await get('http://example.test/posts/8')).relativePath, '7');
});

test('the relative base is the raw path info, not its decoded form', async () => {
  assert.deepEqual(await get('http://example.test/p/a%20b'), { self: '', post: '../posts/x%20y' });
});

test('network path: the scheme\'s default port is left out, another port kept, https too', async () => {
  assert.equal((await get('http://example.test/a/b/c', 'example.test:80')).networkPath, '//example.test/posts/7');
  assert.equal((await get('https://example.test/a/b/c', 'example.test:443')).networkPath, '//example.test/posts/7');
  assert.equal((await get('https://example.test:8443/a/b/c', 'example.test:8443')).networkPath, '//example.test:8443/posts/7');
  assert.equal((await get('https://example.test/a/b/c', 'example.test:80')).networkPath, '//example.test:80/posts/7', '80 is not https\'s default');
  const https = await get('https://example.test/a/b/c', 'example.test');
  assert.equal(https.absoluteUrl, 'https://example.test/posts/7');
  assert.equal(https.networkPath, '//example.test/posts/7', 'the same link for both schemes');
});

test('regression: an absolute URL or network path without a host is a plain path, not http:/// or //:port', async () => {
  assert.deepEqual(await get('http://example.test/refused-host'), { networkPath: '/posts/7', absoluteUrl: '/posts/7', absoluteOption: '/posts/7' });
});

test('any other third argument is a TypeError naming the accepted values', async () => {
  const refused = await get('http://example.test/refusals');
  const message = (given: string) =>
    `TypeError: generateUrl's third argument must be a UrlGeneratorInterface reference type (ABSOLUTE_URL 0, ABSOLUTE_PATH 1, RELATIVE_PATH 2, NETWORK_PATH 3) or { absolute?: boolean }; ${given} given.`;
  assert.deepEqual(refused, {
    '4': message('4'),
    '-1': message('-1'),
    '1.5': message('1.5'),
    NaN: message('NaN'),
    "'1'": message('"1"'),
    true: message('true'),
    null: message('null'),
  });
});
