/**
 * `/_profiler/<token>/exception` (and the Exception panel's frame) rebuilds the error page from the
 * stored profile. Its Logs tab must read as the visitor's page read: the stored messages are already
 * interpolated, so their placeholders are not filled a second time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get, profiledApp, profileOf } from './support.ts';

/** The Logs tab of a debug page. */
function logsTab(page: string): string {
  const start = page.indexOf('<section id="tab-logs"');
  assert.ok(start >= 0, 'the page has a Logs tab');
  return page.slice(start, page.indexOf('</section>', start));
}

test('regression: the exception page rebuilt from a profile filled the placeholders of its stored, already interpolated log messages again, so a client\'s "{user}" showed another context value', async () => {
  const app = profiledApp({
    routes: [
      {
        name: 'search',
        path: '/search',
        controller: (request) => {
          request.logger.warning('app', 'Search for {q}', { q: request.query.get('q'), user: 'bob' });
          throw new Error('Search backend down');
        },
      },
    ],
  });
  const response = await get(app, `/search?q=${encodeURIComponent('hello {user}')}`);
  assert.equal(response.status, 500);
  const live = logsTab(await response.text());
  assert.match(live, /Search for hello \{user\}/, 'the visitor\'s page: the client\'s text as sent');
  const profile = await profileOf(app, response);
  assert.ok(profile.logs.some((r) => r.message === 'Search for hello {user}'), 'the profile stores the same message');

  const rebuilt = logsTab(await (await get(app, `/_profiler/${profile.token}/exception`)).text());
  assert.match(rebuilt, /Search for hello \{user\}/);
  assert.doesNotMatch(rebuilt, /Search for hello bob/);
});
