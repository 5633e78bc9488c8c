import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serve } from '../../src/runtime/node.ts';
import { createNotesApp } from '../../examples/notes-api/app.ts';

/**
 * The notes API example (examples/notes-api), driven as an API client would: what each answer shows.
 * In-process through app.fetch, and once over real HTTP for what only a socket shows (streaming).
 */
const logs: string[] = [];
const notes = createNotesApp({ debug: false, logLevel: 'info', logSink: (line) => void logs.push(line) });

const TOKEN = 'notes-writer-token';
const JSON_CLIENT = { accept: 'application/json' };
const WRITER = { ...JSON_CLIENT, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const ORIGIN = 'https://notes.example';

function call(path: string, init: RequestInit = {}, app = notes): Promise<Response> {
  return app.fetch(new Request(`http://notes.test${path}`, init));
}
function send(method: string, path: string, body: unknown, headers: Record<string, string> = WRITER, app = notes): Promise<Response> {
  return call(path, { method, headers, body: typeof body === 'string' ? body : JSON.stringify(body) }, app);
}
async function create(title: string, app = notes): Promise<{ id: number; title: string; body: string }> {
  const response = await send('POST', '/notes', { title, body: 'text' }, WRITER, app);
  assert.equal(response.status, 201);
  return response.json();
}
async function problem(response: Response): Promise<{ status: number; title: string }> {
  assert.equal(response.headers.get('content-type'), 'application/problem+json');
  return response.json();
}

test('health answers JSON', async () => {
  const response = await call('/health');
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assert.deepEqual(await response.json(), { status: 'ok' });
});

test('a note is created (201 + Location), read, replaced, patched and deleted (204), then gone (404)', async () => {
  const created = await send('POST', '/notes', { title: 'Groceries', body: 'milk' });
  assert.equal(created.status, 201);
  const note = await created.json();
  assert.equal(created.headers.get('location'), `/notes/${note.id}`);
  assert.equal((await (await call(`/notes/${note.id}`)).json()).body, 'milk');

  const replaced = await send('PUT', `/notes/${note.id}`, { title: 'Shopping', body: 'eggs' });
  assert.equal(replaced.status, 200);
  const patched = await send('PATCH', `/notes/${note.id}`, { body: 'bread' });
  assert.deepEqual(await patched.json().then(({ title, body }) => ({ title, body })), { title: 'Shopping', body: 'bread' });

  const deleted = await call(`/notes/${note.id}`, { method: 'DELETE', headers: WRITER });
  assert.equal(deleted.status, 204);
  assert.equal(await deleted.text(), '');
  assert.equal((await problem(await call(`/notes/${note.id}`, { headers: JSON_CLIENT }))).status, 404);
  assert.equal((await call(`/notes/${note.id}`, { method: 'DELETE', headers: WRITER })).status, 404);
});

test('writes need a bearer token on the stateless firewall: 401 with WWW-Authenticate, no session cookie', async () => {
  for (const authorization of [undefined, 'Bearer wrong', 'Basic YTpi']) {
    const headers: Record<string, string> = { ...JSON_CLIENT, 'content-type': 'application/json' };
    if (authorization) headers.authorization = authorization;
    const response = await send('POST', '/notes', { title: 'x', body: 'y' }, headers);
    assert.equal(response.status, 401, authorization);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assert.equal(response.headers.get('set-cookie'), null);
  }
  const ok = await send('POST', '/notes', { title: 'Token holder', body: '' });
  assert.equal(ok.status, 201);
  assert.equal(ok.headers.get('set-cookie'), null);
  assert.ok(logs.some((line) => /app\.INFO: Note \d+ created by writer\./.test(line)));
});

test('an invalid note is a 422 problem document naming each field; a duplicate title a 409', async () => {
  const invalid = await send('POST', '/notes', { title: ' ', body: 42 });
  assert.equal(invalid.status, 422);
  const document = (await problem(invalid)) as unknown as { violations: { propertyPath: string }[] };
  assert.deepEqual(document.violations.map((v) => v.propertyPath), ['title', 'body']);

  await create('Unique title');
  const duplicate = await send('POST', '/notes', { title: 'Unique title', body: '' });
  assert.equal(duplicate.status, 409);
  assert.equal((await problem(duplicate)).title, 'Conflict');
});

test('bodies: not JSON is a 415, broken JSON a 400, over the body limit a 413', async () => {
  const form = await send('POST', '/notes', 'title=x&body=y', { ...WRITER, 'content-type': 'application/x-www-form-urlencoded' });
  assert.equal(form.status, 415);
  const broken = await send('POST', '/notes', '{"title":');
  assert.equal(broken.status, 400);
  assert.equal(await broken.text(), 'Unable to parse request.');
  const big = await send('POST', '/notes', { title: 'big', body: 'x'.repeat(70_000) });
  assert.equal(big.status, 413);
  assert.equal((await problem(big)).title, 'Payload Too Large');
});

test('a method the path does not serve is a 405 with Allow', async () => {
  const response = await call('/notes/1', { method: 'POST', headers: JSON_CLIENT });
  assert.equal(response.status, 405);
  assert.equal(response.headers.get('allow'), 'GET, HEAD, PUT, PATCH, DELETE');
});

test('the list pages with ?page and ?limit; bad values are a 400', async () => {
  const app = createNotesApp({ debug: false, logSink: () => {} });
  for (let i = 1; i <= 12; i++) await create(`note ${i}`, app);
  const second = await (await call('/notes?page=2&limit=5', {}, app)).json();
  assert.deepEqual({ page: second.page, limit: second.limit, total: second.total }, { page: 2, limit: 5, total: 12 });
  assert.deepEqual(second.items.map((n: { title: string }) => n.title), ['note 6', 'note 7', 'note 8', 'note 9', 'note 10']);
  assert.equal((await (await call('/notes?page=3&limit=5', {}, app)).json()).items.length, 2);
  for (const query of ['page=0', 'page=-1', 'page=two', 'limit=101', 'limit=', 'page[]=1', 'page=1.5']) {
    const response = await call(`/notes?${query}`, { headers: JSON_CLIENT }, app);
    assert.equal(response.status, 400, query);
    assert.equal((await problem(response)).title, 'Bad Request');
  }
});

test('a note has an ETag: If-None-Match answers 304 until the note changes', async () => {
  const note = await create('Cached');
  const first = await call(`/notes/${note.id}`);
  const etag = first.headers.get('etag');
  assert.equal(etag, `"note-${note.id}-v1"`);
  assert.equal(first.headers.get('cache-control'), 'max-age=0, must-revalidate, private');
  const again = await call(`/notes/${note.id}`, { headers: { 'if-none-match': etag! } });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), '');
  await send('PATCH', `/notes/${note.id}`, { body: 'changed' });
  const changed = await call(`/notes/${note.id}`, { headers: { 'if-none-match': etag! } });
  assert.equal(changed.status, 200);
  assert.equal(changed.headers.get('etag'), `"note-${note.id}-v2"`);
  // A missing note has no ETag to match: still a 404, whatever the client sends.
  assert.equal((await call('/notes/999999', { headers: { 'if-none-match': '*' } })).status, 404);
});

test('a note downloads as an attachment', async () => {
  const note = await create('Download me');
  const response = await call(`/notes/${note.id}/download`);
  assert.equal(response.headers.get('content-disposition'), `attachment; filename="note-${note.id}.txt"`);
  assert.equal(response.headers.get('content-type'), 'text/plain; charset=UTF-8');
  assert.equal(await response.text(), 'Download me\n\ntext\n');
});

test('CORS: an allowed origin gets its preflight (before routing) and Access-Control-* on answers, errors included', async () => {
  const preflight = await call('/notes/1', { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'PUT' } });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), ORIGIN);
  assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, POST, PUT, PATCH, DELETE');
  assert.equal(preflight.headers.get('vary'), 'Origin');

  const missing = await call('/notes/999999', { headers: { origin: ORIGIN, ...JSON_CLIENT } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('access-control-allow-origin'), ORIGIN);
  assert.equal(missing.headers.get('vary'), 'Accept, Origin');

  const stranger = await call('/notes', { headers: { origin: 'https://evil.example' } });
  assert.equal(stranger.headers.get('access-control-allow-origin'), null);
});

test('every log line of a request carries its request id', async () => {
  logs.length = 0;
  await send('POST', '/notes', { title: 'Logged', body: '' });
  const ids = new Set(logs.map((line) => /"request_id":"([^"]+)"/.exec(line)?.[1]));
  assert.equal(ids.size, 1);
  assert.match([...ids][0] ?? '', /^[0-9a-f]{6}-[0-9a-z]+$/);
});

test('debug mode: the profile of a request reads back as JSON, the bearer token masked; production has no profiler', async () => {
  const debug = createNotesApp({ debug: true, logLevel: 'emergency', logSink: () => {} });
  const response = await send('POST', '/notes', { title: 'Profiled', body: '' }, WRITER, debug);
  const link = response.headers.get('x-debug-token-link');
  assert.ok(link);
  const profile = await (await debug.fetch(new Request(link, { headers: JSON_CLIENT }))).json();
  assert.deepEqual([profile.route, profile.status, profile.controller], ['note_create', 201, 'createNote']);
  assert.equal(profile.request.headers.authorization, 'Bearer ***');
  assert.ok(!JSON.stringify(profile).includes(TOKEN));

  const production = await call('/_profiler/latest', { headers: JSON_CLIENT });
  assert.equal(production.status, 404);
  assert.equal((await call('/health')).headers.get('x-debug-token'), null);
});

test('over HTTP: the event stream arrives event by event, and is cancelled when the client leaves', async () => {
  const httpLogs: string[] = [];
  let closed!: () => void;
  const streamClosed = new Promise<void>((resolve) => (closed = resolve));
  const app = createNotesApp({ debug: false, logLevel: 'info', logSink: (line) => {
    httpLogs.push(line);
    if (line.includes('Event stream closed by the client')) closed();
  } }, { eventIntervalMs: 20 });
  const server = await serve(app, { port: 0, handleSignals: false });
  try {
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.port}/events`, { signal: controller.signal });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=UTF-8');
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // The stream never ends: each read returning an event shows nothing waits for the end.
    assert.equal(decoder.decode((await reader.read()).value), 'id: 1\nevent: count\ndata: {"total":0}\n\n');
    assert.match(decoder.decode((await reader.read()).value), /^id: 2\n/);
    controller.abort();
    await streamClosed;
    assert.ok(httpLogs.some((line) => /app\.INFO: Event stream closed by the client after \d+ events\./.test(line)));
  } finally {
    await server.close(0);
  }
});
