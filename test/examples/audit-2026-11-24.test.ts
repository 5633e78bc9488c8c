import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGuestbookApp, MAX_ENTRIES } from '../../examples/guestbook/app.ts';
import { createNotesApp, MAX_NOTES } from '../../examples/notes-api/app.ts';

type GuestbookApp = ReturnType<typeof createGuestbookApp>;

/** A browser for the guestbook: keeps its cookies, never follows redirects. */
function browser(app: GuestbookApp) {
  const jar = new Map<string, string>();
  return async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await app.fetch(new Request(`http://guestbook.test${path}`, { ...init, headers, redirect: 'manual' }));
    for (const line of response.headers.getSetCookie()) {
      const [, name, value] = /^([^=]+)=([^;]*)/.exec(line)!;
      jar.set(name!, value!);
    }
    return response;
  };
}

test('regression: the guestbook kept every entry anyone signed, so anonymous posts grew its memory without bound; it keeps the newest MAX_ENTRIES', async () => {
  const visit = browser(createGuestbookApp({ debug: false, logSink: () => {} }));
  const form = await (await visit('/en/entries/new')).text();
  const token = /name="entry\[_token\]" value="([^"]*)"/.exec(form)![1]!;
  const signed = MAX_ENTRIES + 5;
  for (let i = 1; i <= signed; i++) {
    const body = new URLSearchParams({ 'entry[_token]': token, 'entry[author]': `Guest ${i}`, 'entry[message]': `Entry ${i}` });
    assert.equal((await visit('/en/entries/new', { method: 'POST', body })).status, 303);
  }
  const pages = MAX_ENTRIES / 5;
  assert.match(await (await visit('/en/')).text(), new RegExp(`<span>1 / ${pages}</span>`));
  const last = await (await visit(`/en/?page=${pages}`)).text();
  assert.match(last, new RegExp(`id="entry-${signed - MAX_ENTRIES + 1}"`));
  assert.doesNotMatch(last, new RegExp(`id="entry-${signed - MAX_ENTRIES}"`));
  assert.equal((await visit(`/en/?page=${pages + 1}`)).status, 404);
});

test('regression: the notes API stored every note a writer posted, without bound; past MAX_NOTES a new note is a 507 problem+json', async () => {
  const app = createNotesApp({ debug: false, logSink: () => {} });
  // The notes a client posted in a loop, short of the bound by one.
  for (let i = 1; i < MAX_NOTES; i++) app.store.save({ title: `Note ${i}`, body: 'x' });
  const post = (title: string) =>
    app.fetch(new Request('http://notes.test/notes', {
      method: 'POST',
      headers: { authorization: 'Bearer notes-writer-token', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ title, body: 'b' }),
    }));
  assert.equal((await post('the last one')).status, 201);
  const refused = await post('one too many');
  assert.equal(refused.status, 507);
  assert.equal(refused.headers.get('content-type'), 'application/problem+json');
  assert.deepEqual(await refused.json(), { type: 'https://tools.ietf.org/html/rfc2616#section-10', title: 'Insufficient Storage', status: 507, detail: 'Insufficient Storage' });
  assert.equal(app.store.size, MAX_NOTES);
  // Deleting makes room again.
  const deleted = await app.fetch(new Request('http://notes.test/notes/1', { method: 'DELETE', headers: { authorization: 'Bearer notes-writer-token' } }));
  assert.equal(deleted.status, 204);
  assert.equal((await post('one too many')).status, 201);
});

test('regression: the guestbook login took `_username[]=admin` as the username "admin" (an array cast to text) and answered 200; Symfony\'s form login answers 400', async () => {
  const visit = browser(createGuestbookApp({ debug: true, logSink: () => {} }));
  const form = await (await visit('/en/login')).text();
  const token = /name="_csrf_token" value="([^"]*)"/.exec(form)![1]!;
  const body = new URLSearchParams({ _csrf_token: token, '_username[]': 'admin', _password: 'admin-pass' });
  const response = await visit('/en/login', { method: 'POST', body });
  assert.equal(response.status, 400);
  assert.match(await response.text(), /The key &quot;_username&quot; must be a string, &quot;array&quot; given\./);
  // A JSON body's object is PHP's array too.
  const json = await visit('/en/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ _csrf_token: token, _username: { a: 1 }, _password: 'x' }) });
  assert.equal(json.status, 400);
  // A string still logs in.
  const ok = await visit('/en/login', { method: 'POST', body: new URLSearchParams({ _csrf_token: token, _username: 'admin', _password: 'admin-pass' }) });
  assert.equal(ok.status, 302);
});
