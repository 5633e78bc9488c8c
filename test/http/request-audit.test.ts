import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IpMatcher } from '../../src/http/ip.ts';
import { ParameterBag } from '../../src/http/parameter-bag.ts';
import { KernelRequest, normalizeQueryString, parseQuery } from '../../src/http/request.ts';
import { BadRequestException, SuspiciousOperationException } from '../../src/kernel/exceptions.ts';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';
import { kernelRequest, settings, source } from '../support/request.ts';

test('regression: ParameterBag::all(key) ignored its key and answered every parameter; as Symfony 5.4\'s ParameterBag::all (`$this->parameters[$key] ?? []`, else BadRequestException) it answers that array, [] when absent, a 400 for a scalar', async () => {
  const r = kernelRequest({ target: '/?tags[]=a&tags[]=b&user[name]=ann&q=x' });
  assert.deepEqual(r.query.all('tags'), ['a', 'b']);
  assert.deepEqual({ ...r.query.all('user') }, { name: 'ann' });
  assert.deepEqual(r.query.all('missing'), []);
  assert.deepEqual(Object.keys(r.query.all()), ['tags', 'user', 'q'], 'without a key: every parameter');
  assert.throws(() => r.query.all('q'), (e: unknown) => e instanceof BadRequestException && e.message === 'Unexpected value for parameter "q": expecting "array", got "string".');

  // get_debug_type of what a JSON body or a listener puts in a bag.
  const bag = new ParameterBag({ n: 5, f: 1.5, b: true, nul: null, list: [1], obj: { a: 1 } });
  const type = (key: string) => {
    try {
      bag.all(key);
      return 'array';
    } catch (e) {
      return (e as Error).message.replace(/.*got "(.*)"\.$/, '$1');
    }
  };
  assert.deepEqual(['n', 'f', 'b', 'nul', 'list', 'obj'].map(type), ['int', 'float', 'bool', 'array', 'array', 'array']);
  assert.deepEqual(bag.all('nul'), [], 'null ?? [] is []');

  const routes: RouteDefinition[] = [{ name: 'tags', path: '/tags', controller: (req) => HttpResponse.json(req.query.all('tags')) }];
  const { app } = testApp({ env: 'prod', routes });
  assert.deepEqual(await (await send(app, '/tags?tags[]=x')).json(), ['x']);
  assert.equal((await send(app, '/tags?tags=x')).status, 400, 'a BadRequestException is a 400, as in Symfony');
});

test('regression: getUri and getQueryString normalised every pair of a long query string (9 ms a call for 8,000 pairs); HeaderUtils::parseQuery reads it with parse_str, which stops at max_input_vars (1000), before ksort', () => {
  // Keys written in reverse order: parse_str keeps the first 1000 as written (k1199 … k0200), then ksort sorts them.
  const pairs = Array.from({ length: 1200 }, (_, i) => `k${String(1199 - i).padStart(4, '0')}=v`);
  const normalized = normalizeQueryString(pairs.join('&')).split('&');
  assert.equal(normalized.length, 1000);
  assert.equal(normalized[0], 'k0200=v');
  assert.equal(normalized[999], 'k1199=v');
  // Empty pairs are no variables (php_strtok_r skips them), so they do not count.
  assert.equal(normalizeQueryString('&'.repeat(5000) + 'a=1').split('&').length, 1);
  const r = kernelRequest({ target: `/p?${pairs.join('&')}` });
  assert.equal(r.getQueryString()!.split('&').length, 1000);
});

test('regression: normalizeQueryString sorted numeric names that are no integer keys (`5.5`, `1e3`, `01`) as text; ksort compares them as PHP 8 compares numeric strings, by value (zendi_smart_strcmp, php_array_key_compare_unstable_i)', () => {
  // $query keys: 10 (int), '5.5', '1e3', 999 (int), '01', 1 (int): by value 1, 1, 5.5, 10, 999, 1000; the tie keeps its order.
  assert.equal(normalizeQueryString('10=a&5.5=b&1e3=c&999=d&01=e&1=f'), '01=e&1=f&5.5=b&10=a&999=d&1e3=c');
  // Names that are not numeric compare byte-wise, against integers too (zend_compare_long_to_string).
  assert.equal(normalizeQueryString('b=1&a10=2&a9=3&10=4&9=5&-1=6'), '-1=6&9=5&10=4&a10=2&a9=3&b=1');
  assert.equal(normalizeQueryString('x=1&2.5=2&10=3&%2B1=4'), '%2B1=4&2.5=2&10=3&x=1', '`+1` is numeric too');
});

test('regression: ParameterBag::getInt gave 1e+100 for `1e100` and 1e+20 for `99999999999999999999`; PHP\'s (int) of a numeric string saturates at PHP_INT_MAX / PHP_INT_MIN (zval_get_long: zend_dval_to_lval_cap)', () => {
  const bag = new ParameterBag({ big: '1e100', digits: '99999999999999999999', neg: '-1e100', inf: '1e999', ok: '9007199254740991' });
  const PHP_INT_MAX = Number(9223372036854775807n);
  assert.equal(bag.getInt('big'), PHP_INT_MAX);
  assert.equal(bag.getInt('digits'), PHP_INT_MAX);
  assert.equal(bag.getInt('neg'), -PHP_INT_MAX);
  assert.equal(bag.getInt('inf'), 0, 'an infinite value is 0');
  assert.equal(bag.getInt('ok'), 9007199254740991);
  assert.equal(kernelRequest({ target: '/?page=1e100' }).query.getInt('page'), PHP_INT_MAX);
});

test('regression: a name nested past the depth limit was dropped alone; PHP\'s php_register_variable_ex also deletes the variable of that base name (zend_symtable_str_del), so `a=1&a[x]…` leaves no `a`', () => {
  const deep = (base: string) => base + '[x]'.repeat(40);
  assert.deepEqual({ ...parseQuery(`a=1&b=2&${deep('a')}=3`) }, { b: '2' });
  assert.deepEqual({ ...parseQuery(`${deep('a')}=3&a=1`) }, { a: '1' }, 'a later a is set again');
  assert.deepEqual({ ...parseQuery(`a[y]=1&${deep('a')}=3`) }, {});
  assert.deepEqual({ ...parseQuery(`a.b=1&${deep('a.b')}=3`) }, {}, 'the mangled base name');
  assert.deepEqual({ ...parseQuery(`a=1&${'[x]'.repeat(40)}=3`) }, { a: '1' }, 'an empty name deletes nothing');
  assert.equal(typeof parseQuery(`a=1&${'a' + '[x]'.repeat(30)}=3`).a, 'object', 'within the limit the name nests');
  assert.equal(normalizeQueryString(`a=1&b=2&${deep('a')}=3`), 'b=2', 'the normalized query string, read by parse_str, too');
  assert.deepEqual({ ...kernelRequest({ headers: { cookie: `a=1; ${deep('a')}=3; c=4` } }).cookies.all() }, { c: '4' }, 'and $_COOKIE');
});

test('regression: `Host: 0` was the host "0"; Request::getHost and getPort test the header for truth (`!$host = …`), and "0" is PHP-falsy, so the server\'s own name and port are used as for a missing Host', () => {
  const r = new KernelRequest({ ...source({ headers: { host: '0' } }), fallbackHost: 'server.test:8080' }, settings());
  assert.equal(r.getHost(), 'server.test');
  assert.equal(r.getPort(), 8080);
  assert.equal(r.getSchemeAndHttpHost(), 'http://server.test:8080');
  const trusted = new KernelRequest({ ...source({ headers: { host: '0' } }), fallbackHost: 'server.test' }, settings({ trustedHosts: [/^server\.test$/i] }));
  assert.equal(trusted.getHost(), 'server.test', 'no Untrusted Host "0" (400)');
  assert.equal(kernelRequest({ headers: { host: '00' } }).getHost(), '00', '"00" is a non-empty string PHP reads as true');
});

test('regression: a forwarded `[IPv6` without its `]` kept its last character; normalizeAndFilterClientIps takes substr($ip, 1, $i - 1) with $i false, dropping it', () => {
  const proxied = (xff: string) => kernelRequest({ remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': xff } }, { trustedProxies: new IpMatcher(['10.0.0.0/8']) });
  assert.equal(proxied('[2001:db8::1').getClientIp(), '2001:db8::');
  assert.equal(proxied('[2001:db8::1]:443').getClientIp(), '2001:db8::1');
  assert.equal(proxied('[').getClientIp(), '10.0.0.1', 'nothing left: no address');
});

test('regression: a Host a listener set (`request.headers.set(\'host\', …)`) changed nothing, and an X-Forwarded-Host set after the first getHost neither: getHost kept its first answer and read the host\'s own header; Symfony\'s getHost and getPort read $this->headers on each call', async () => {
  const r = kernelRequest({ headers: { host: 'a.test' } });
  assert.equal(r.getHost(), 'a.test');
  r.headers.set('host', 'b.test:8080');
  assert.equal(r.getHost(), 'b.test');
  assert.equal(r.getPort(), 8080);
  assert.equal(r.getSchemeAndHttpHost(), 'http://b.test:8080');
  r.headers.set('host', 'bad host');
  assert.throws(() => r.getHost(), SuspiciousOperationException);
  assert.equal(r.getHost(), '', 'then empty, so that the error page can be built (isHostValid)');

  const proxied = kernelRequest({ remoteAddress: '10.0.0.1', headers: { host: 'a.test' } }, { trustedProxies: new IpMatcher(['10.0.0.0/8']) });
  assert.equal(proxied.getHost(), 'a.test');
  proxied.headers.set('x-forwarded-host', 'c.test');
  assert.equal(proxied.getHost(), 'c.test');

  // A listener that takes the host from a header of its own proxy, before routing (Symfony: priority above 32).
  const { app } = testApp({
    env: 'prod',
    routes: [{ name: 'where', path: '/where', controller: (req) => HttpResponse.text(req.getUri()) }],
    listeners: [{
      hook: 'kernel.request',
      placement: { priority: 100 },
      listener: { id: 'App\\EventListener\\OriginalHost::onKernelRequest', role: 'host from X-Original-Host', call: (event) => {
        const original = event.request.headers.get('x-original-host');
        if (original !== null) event.request.headers.set('host', original);
      } },
    }],
  });
  assert.equal(await (await send(app, '/where?b=2&a=1', { headers: { 'x-original-host': 'shop.test' } })).text(), 'http://shop.test/where?a=1&b=2');
});

test('regression: getETags trimmed each tag with String#trim, which drops a no-break space (0xA0) a header can carry, so `"a"\\xA0` matched the ETag `"a"` (a 304); Request::getETags splits at `\\s*,\\s*` (PCRE\'s ASCII blanks) and keeps it', () => {
  const etags = (value: string) => kernelRequest({ headers: { 'if-none-match': value } }).getETags();
  assert.deepEqual(etags('"a"\xa0, \xa0"b"'), ['"a"\xa0', '\xa0"b"']);
  assert.deepEqual(etags('"a" ,\t"b" \x0b, ,"c"'), ['"a"', '"b"', '"c"'], 'blanks around commas go; empty tags too');
  const response = HttpResponse.text('x').setEtag('a');
  assert.equal(response.isNotModified(kernelRequest({ headers: { 'if-none-match': '"a"\xa0' } })), false);
  assert.equal(response.isNotModified(kernelRequest({ headers: { 'if-none-match': 'W/"b", "a"' } })), true);
});

test('regression: toArray read an integer beyond 64 bits as a lossy number (12345678901234567890 became 12345678901234567000); Request::toArray decodes with JSON_BIGINT_AS_STRING, so it is its digits, as a string', async () => {
  const body = (text: string) => kernelRequest({ method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
  const data = await body('{"id": 12345678901234567890, "max": 9223372036854775807, "min": -9223372036854775808, "over": 9223372036854775808, "under": -9223372036854775809, "f": 12345678901234567890.5, "e": 12345678901234567890e0, "s": "x\\" 12345678901234567890", "list": [1, 123456789012345678901234567890]}').toArray();
  assert.deepEqual(data, {
    id: '12345678901234567890',
    max: 9223372036854775807, // an int in PHP: the nearest number here
    min: -9223372036854775808,
    over: '9223372036854775808',
    under: '-9223372036854775809',
    f: 12345678901234567890.5,
    e: 12345678901234567890e0,
    s: 'x" 12345678901234567890',
    list: [1, '123456789012345678901234567890'],
  });
  await assert.rejects(body(' 12345678901234567890 ').toArray(), (e: Error) => e.message === 'JSON content was expected to decode to an array, "string" returned.');
  await assert.rejects(body('9223372036854775807').toArray(), (e: Error) => e.message === 'JSON content was expected to decode to an array, "int" returned.');
});
