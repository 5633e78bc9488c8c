import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, MemorySessionStore } from '../../src/index.ts';
import { get, profiledApp, tick } from './support.ts';

test('the session panel lists unread flashes apart from the attributes, as Symfony\'s request panel does', async () => {
  const app = profiledApp({
    sessionStore: new MemorySessionStore(),
    routes: [
      {
        name: 'save',
        path: '/save',
        controller: (r) => {
          r.getSession().set('cart', ['<b>book</b>']);
          r.getSession().getFlashBag().add('success', 'Saved <script>');
          return HttpResponse.text('ok');
        },
      },
    ],
  });
  const r = await get(app, '/save');
  const token = r.headers.get('x-debug-token');
  await tick(20);
  const page = await (await get(app, `/_profiler/${token}?panel=session`)).text();
  const attributes = page.slice(page.indexOf('<h3>Session Attributes</h3>'), page.indexOf('<h3>Flashes</h3>'));
  const flashes = page.slice(page.indexOf('<h3>Flashes</h3>'));
  assert.ok(attributes.includes('cart') && !attributes.includes('_symfony_flashes'), attributes);
  assert.ok(flashes.includes('success') && flashes.includes('Saved &lt;script&gt;'), flashes);
});
