import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createNotesApp } from '../../examples/notes-api/app.ts';

/** What the examples' READMEs say about an answer, checked against the answer. */
const notesReadme = readFileSync(new URL('../../examples/notes-api/README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

test('regression: the notes-api README called the broken-JSON 400 "plain-text"; it is text/html, as Symfony\'s `new Response(…, 400)`', async () => {
  const notes = createNotesApp({ debug: false, logLevel: 'emergency', logSink: () => {} });
  const response = await notes.fetch(new Request('http://notes.test/notes', {
    method: 'POST',
    headers: { accept: 'application/json', authorization: 'Bearer notes-writer-token', 'content-type': 'application/json' },
    body: '{',
  }));
  assert.equal(response.status, 400);
  assert.equal(await response.text(), 'Unable to parse request.');
  const type = response.headers.get('content-type');
  assert.equal(type, 'text/html; charset=UTF-8');
  assert.doesNotMatch(notesReadme, /plain-text 400/);
  assert.ok(notesReadme.includes(`\`${type}\``), 'the README names the content type a client gets');
});
