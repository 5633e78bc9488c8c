import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IpMatcher } from '../../src/http/ip.ts';
import { JsonException } from '../../src/kernel/exceptions.ts';
import { kernelRequest, type SourceInit } from '../support/request.ts';
import { HttpResponse } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

const methodOf = (method: string, override?: string) => kernelRequest({ method, headers: override ? { 'x-http-method-override': override } : {} });

test('Request::getMethod, getRealMethod and isMethod: the override counts, the comparison is upper-cased', () => {
  const r = methodOf('post', 'put');
  assert.equal(r.getMethod(), 'PUT');
  assert.equal(r.getRealMethod(), 'POST');
  assert.equal(r.isMethod('put'), true);
  assert.equal(r.isMethod('POST'), false);
});

test('Request::isMethodSafe, isMethodIdempotent and isMethodCacheable use Symfony 5.4 lists', () => {
  const row = (m: string) => {
    const r = methodOf(m);
    return [r.isMethodSafe(), r.isMethodIdempotent(), r.isMethodCacheable()].map(Number).join('');
  };
  assert.deepEqual(
    Object.fromEntries(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE', 'PURGE', 'POST', 'PATCH', 'CONNECT'].map((m) => [m, row(m)])),
    { GET: '111', HEAD: '111', OPTIONS: '110', TRACE: '110', PUT: '010', DELETE: '010', PURGE: '010', POST: '000', PATCH: '000', CONNECT: '000' },
  );
  assert.equal(methodOf('POST', 'GET').isMethodCacheable(), true, 'the effective method decides');
});

test('Request::getPathInfo, getRequestUri and getQueryString (normalised, null when empty)', () => {
  const r = kernelRequest({ target: '/caf%C3%A9/x?b=2&a=1&c' });
  assert.equal(r.getPathInfo(), '/caf%C3%A9/x');
  assert.equal(r.getRequestUri(), '/caf%C3%A9/x?b=2&a=1&c');
  assert.equal(r.getQueryString(), 'a=1&b=2&c=', 'http_build_query writes `c=`');
  assert.equal(kernelRequest({ target: '/p' }).getQueryString(), null);
  assert.equal(kernelRequest({ target: '/p?' }).getQueryString(), null);
  assert.equal(kernelRequest({ target: 'http://h.test/abs?q=a+b' }).getRequestUri(), '/abs?q=a+b');
  assert.equal(kernelRequest({ target: '/p?q=a+b' }).getQueryString(), 'q=a%20b');
});

const accepting = (headers: SourceInit['headers']) => kernelRequest({ headers });

test('Request::getLanguages: by quality, header order on ties, Symfony spelling (de-ch → de_CH, i-klingon → klingon)', () => {
  assert.deepEqual(accepting({ 'accept-language': 'fr;q=0.5, de-ch, en-us-x-foo;q=0.8, i-klingon;q=0.5, *;q=0.1' }).getLanguages(), ['de_CH', 'en_US_X_FOO', 'fr', 'klingon', '*']);
  assert.deepEqual(accepting({}).getLanguages(), []);
  assert.deepEqual(accepting({ 'accept-language': 'en;q=0, de' }).getLanguages(), ['de'], 'q=0 is not acceptable');
});

test('Request::getPreferredLanguage: the first language, or the first of `locales` matching a language or its primary language', () => {
  assert.equal(accepting({ 'accept-language': 'de-CH, fr;q=0.8' }).getPreferredLanguage(), 'de_CH');
  assert.equal(accepting({}).getPreferredLanguage(), null);
  assert.equal(accepting({}).getPreferredLanguage(['en', 'fr']), 'en');
  assert.equal(accepting({ 'accept-language': 'de-CH, fr;q=0.8' }).getPreferredLanguage(['en', 'fr', 'de']), 'de', 'de_CH is followed by de');
  assert.equal(accepting({ 'accept-language': 'de-CH, de;q=0.1, fr;q=0.8' }).getPreferredLanguage(['fr', 'de']), 'fr', 'de listed itself keeps its own place');
  assert.equal(accepting({ 'accept-language': 'es' }).getPreferredLanguage(['en', 'fr']), 'en');
  assert.equal(accepting({ 'accept-language': 'es' }).getPreferredLanguage([]), 'es');
});

test('Request::getAcceptableContentTypes, getFormat, getRequestFormat and getPreferredFormat', () => {
  const r = accepting({ accept: 'text/html;q=0.9, application/json, */*;q=0.8' });
  assert.deepEqual(r.getAcceptableContentTypes(), ['application/json', 'text/html', '*/*']);
  assert.equal(r.getPreferredFormat(), 'json');
  assert.equal(r.getRequestFormat(), 'html');
  assert.equal(r.getRequestFormat(null), null);
  r.attributes.set('_format', 'xml');
  assert.equal(r.getRequestFormat(), 'xml');
  assert.equal(r.getPreferredFormat(), 'xml', 'the request format first');
  assert.equal(accepting({ accept: '*/*' }).getPreferredFormat(), 'html');
  assert.equal(accepting({ accept: 'image/png' }).getPreferredFormat(null), null);
  assert.equal(accepting({ accept: 'application/problem+json' }).getPreferredFormat(), 'html', 'only types of Request::$formats count');
  assert.equal(r.getFormat('application/json; charset=utf-8'), 'json');
  assert.equal(r.getFormat('text/javascript'), 'js');
  assert.equal(r.getFormat('Application/JSON'), null, 'case-sensitive, as in_array');
  assert.equal(r.getFormat(null), null);
});

test('Request::getContentTypeFormat (5.4 getContentType): the format of the Content-Type, null when none', () => {
  assert.equal(accepting({ 'content-type': 'application/json; charset=utf-8' }).getContentTypeFormat(), 'json');
  assert.equal(accepting({ 'content-type': 'application/x-www-form-urlencoded' }).getContentType(), 'form');
  assert.equal(accepting({ 'content-type': 'application/vnd.api+json' }).getContentTypeFormat(), null);
  assert.equal(accepting({}).getContentTypeFormat(), null);
});

const body = (text: string) => kernelRequest({ method: 'POST', body: text, headers: { 'content-type': 'application/json' } });

test('Request::getContent is the body; toArray decodes a JSON object or list', async () => {
  assert.equal(new TextDecoder().decode(await body('{"a":1}').getContent()), '{"a":1}');
  assert.deepEqual({ ...(await body('{"a":{"b":[1,null]}}').toArray()) }, { a: { b: [1, null] } });
  assert.deepEqual(await body('[1,2]').toArray(), [1, 2]);
});

test('Request::toArray refuses an empty body, bad JSON and scalars with Symfony\'s JsonException messages (a 400)', async () => {
  const refused = async (text: string, message: string) => {
    await assert.rejects(body(text).toArray(), (e: Error) => e instanceof JsonException && e.message === message, `${text} → ${message}`);
  };
  await refused('', 'Request body is empty.');
  await refused('{"a":', 'Could not decode request body.');
  await refused('\uFEFF{}', 'Could not decode request body.');
  await refused(' ', 'Could not decode request body.');
  await refused('1', 'JSON content was expected to decode to an array, "int" returned.');
  await refused('1.0', 'JSON content was expected to decode to an array, "float" returned.');
  await refused('"s"', 'JSON content was expected to decode to an array, "string" returned.');
  await refused('true', 'JSON content was expected to decode to an array, "bool" returned.');
  await refused('null', 'JSON content was expected to decode to an array, "null" returned.');
  const bad = kernelRequest({ method: 'POST', body: new Blob([new Uint8Array([0x22, 0xff, 0x22])]).stream() });
  await assert.rejects(bad.toArray(), /Could not decode request body\./, 'invalid UTF-8');
});

test('regression: toArray accepted what json_decode refuses (an unpaired surrogate escape, nesting past 512); it now throws the same JsonException as for bad JSON', async () => {
  for (const text of ['{"a":"\\ud800"}', '["x\\uDC00y"]', '{"\\ud83d":1}', '['.repeat(512) + ']'.repeat(512)]) {
    await assert.rejects(body(text).toArray(), (e: Error) => e instanceof JsonException && e.message === 'Could not decode request body.', text.slice(0, 40));
  }
  // A surrogate pair is one character, and 511 levels are within json_decode's depth 512 (the document is a level).
  assert.deepEqual(await body('["\\ud83d\\ude00"]').toArray(), ['\u{1F600}']);
  assert.equal((await body('['.repeat(511) + ']'.repeat(511)).toArray()).length, 1);
});

test('Request::getETags and isNoCache', () => {
  assert.deepEqual(accepting({ 'if-none-match': '"a", W/"b" ,, "c"' }).getETags(), ['"a"', 'W/"b"', '"c"']);
  assert.deepEqual(accepting({}).getETags(), []);
  assert.equal(accepting({ 'cache-control': 'max-age=0, no-cache' }).isNoCache(), true);
  assert.equal(accepting({ 'cache-control': 'no-cache="set-cookie"' }).isNoCache(), true);
  assert.equal(accepting({ pragma: 'no-cache' }).isNoCache(), true);
  assert.equal(accepting({ 'cache-control': 'no-store' }).isNoCache(), false);
  assert.equal(accepting({}).isNoCache(), false);
});

test('Request::getLocale, getDefaultLocale and getProtocolVersion (Via only from a trusted proxy)', () => {
  const r = kernelRequest();
  assert.equal(r.getLocale(), 'en');
  assert.equal(r.getDefaultLocale(), 'en');
  r.setLocale('fr');
  assert.equal(r.getLocale(), 'fr');
  assert.equal(r.getDefaultLocale(), 'en');
  assert.equal(r.getProtocolVersion(), 'HTTP/1.1');
  assert.equal(kernelRequest({ headers: { via: '1.0 proxy' } }).getProtocolVersion(), 'HTTP/1.1', 'untrusted peer');
  const trusted = { trustedProxies: new IpMatcher(['127.0.0.1']) };
  assert.equal(kernelRequest({ headers: { via: '1.0 proxy' } }, trusted).getProtocolVersion(), 'HTTP/1.0');
  assert.equal(kernelRequest({ headers: { via: 'HTTP/2.0 proxy, 1.1 other' } }, trusted).getProtocolVersion(), 'HTTP/2.0');
  assert.equal(kernelRequest({ headers: { via: 'proxy' } }, trusted).getProtocolVersion(), 'HTTP/1.1');
});

test('regression: Accept-Language and Accept qualities were read with Number (`q="0.9"` and `q=0.9x` dropped the entry) and entries split at every comma; they are read as AcceptHeader reads them (HeaderUtils::split, PHP\'s (float))', async () => {
  assert.deepEqual(accepting({ 'accept-language': 'fr;q="0.9", en;q=0.8' }).getLanguages(), ['fr', 'en'], 'a quoted quality');
  assert.deepEqual(accepting({ 'accept-language': 'fr;q=0.9x, en;q=0.8' }).getLanguages(), ['fr', 'en'], '(float) reads the leading number');
  assert.deepEqual(accepting({ 'accept-language': 'fr;q = 0.9, en;q=0.8' }).getLanguages(), ['fr', 'en'], 'blanks around =');
  assert.deepEqual(accepting({ 'accept-language': 'fr;x="a,de";q=0.5, en;q=0.8' }).getLanguages(), ['en', 'fr'], 'a comma inside quotes separates nothing');
  assert.deepEqual(accepting({ 'accept-language': 'en;q=0x1, fr' }).getLanguages(), ['fr'], '0x1 is no number to PHP: 0, not acceptable');
  assert.deepEqual(accepting({ accept: 'text/plain;q=0.1;x="1,application/json", text/html;q=0.05' }).getAcceptableContentTypes(), ['text/plain', 'text/html']);
  assert.equal(accepting({ accept: 'text/plain;q=0.1;x="1,application/json"' }).getPreferredFormat(), 'txt');
  assert.deepEqual(accepting({ accept: ';;;,,,=' }).getAcceptableContentTypes(), [], 'entries without a value are left out, nothing throws');

  const { app } = testApp({ env: 'prod', enabledLocales: ['en', 'fr'], routes: [{ name: 'locale', path: '/locale', controller: (r) => HttpResponse.text(r.locale) }] });
  const answer = await send(app, '/locale', { headers: { 'accept-language': 'fr;q="0.9", en;q=0.8' } });
  assert.equal(await answer.text(), 'fr');
});

test('regression: a long Accept header was split whole (milliseconds per request for a 16 KB one) though only 32 entries are read; entries past 2,048 characters are not read', () => {
  // Fewer than 32 entries, but the JSON one starts past the 2,048th character: it is not read.
  const padded = 'text/html;q=0.5;' + 'a=b;'.repeat(600) + 'c=d, application/json';
  assert.equal(kernelRequest({ headers: { accept: padded } }).prefersJson(), false);
  assert.equal(kernelRequest({ headers: { accept: 'text/html;q=0.5;a=b, application/json' } }).prefersJson(), true);
  // A comma inside quotes separates no entries: the 32 are counted as AcceptHeader counts them.
  const quoted = 'text/html;q=0.5;x="' + ','.repeat(40) + '", application/json';
  assert.equal(kernelRequest({ headers: { accept: quoted } }).prefersJson(), true);
  const many = Array.from({ length: 40 }, (_, i) => `x/y${i};q=0.1`).join(', ') + ', application/json';
  assert.deepEqual(kernelRequest({ headers: { accept: many } }).getAcceptableContentTypes().length, 32);
});
