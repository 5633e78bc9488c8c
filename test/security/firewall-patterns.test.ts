import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FirewallMap, HttpResponse } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

test('regression: the admin firewall\'s ^/admin(?:/|$) missed /admin%0A, which fell to the main firewall and its context; string patterns are read as PCRE reads Symfony\'s ($ also before a final newline)', async () => {
  const { app } = testApp({ routes: [{ name: 'page', path: '/:page', controller: (r) => HttpResponse.text(String(r.attributes.get('_firewall'))) }] });
  assert.equal(await (await send(app, '/admin')).text(), 'admin');
  assert.equal(await (await send(app, '/admin%0A')).text(), 'admin');
  assert.equal(await (await send(app, '/administrator')).text(), 'main');
});

test('firewall patterns: \\A and \\z are anchors in a string, a RegExp keeps JavaScript\'s reading, a bad pattern is refused quoting it', () => {
  const map = new FirewallMap([{ name: 'api', pattern: '\\A/api/', stateless: true }, { name: 'exact', pattern: /^\/exact$/ }, { name: 'main' }]);
  assert.equal(map.match('/api/x')?.name, 'api');
  assert.equal(map.match('/exact')?.name, 'exact');
  assert.equal(map.match('/exact\n')?.name, 'main', 'a RegExp is JavaScript\'s: $ is the end');
  assert.throws(() => new FirewallMap([{ name: 'bad', pattern: '^/(admin' }]), /\^\/\(admin/);
});
