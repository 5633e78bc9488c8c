import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { records, send, testApp } from '../pipeline/harness.ts';

/** Files as `{ file, size, type }`, at any depth, so the JSON shows what the controller got. */
function described(value: unknown): unknown {
  if (value instanceof File) return { file: value.name, size: value.size, type: value.type };
  if (Array.isArray(value)) return value.map(described);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, v] of Object.entries(value)) out[k] = described(v);
    return out;
  }
  return value;
}

let parsed: Record<string, unknown> = {};
const routes: RouteDefinition[] = [
  {
    name: 'echo',
    path: '/echo',
    controller: (request) => {
      parsed = request.request.all();
      return HttpResponse.json(described(parsed));
    },
  },
];

const part = (disposition: string, body: string, extra: string[] = []) => ['--XB', `Content-Disposition: ${disposition}`, ...extra, '', body].join('\r\n') + '\r\n';
const END = '--XB--\r\n';

async function multipart(app: ReturnType<typeof testApp>['app'], body: string, type = 'multipart/form-data; boundary=XB') {
  const r = await send(app, '/echo', { method: 'POST', headers: { 'content-type': type }, body });
  return { status: r.status, params: r.status === 200 ? await r.json() : await r.text() };
}

test('regression: multipart bodies PHP reads were a 400 "Unable to parse request." (a preamble, a missing final boundary, a folded or LF-only header, bare or single-quoted names, "attachment", a part without a name or Content-Disposition, a "," before the boundary); they give what PHP puts in $_POST', async () => {
  const { app } = testApp({ env: 'prod', routes });
  const cases: [string, string, unknown, string?][] = [
    ['preamble and epilogue', 'a preamble\r\n' + part('form-data; name="a"', '1') + END + 'an epilogue', { a: '1' }],
    ['no final boundary', part('form-data; name="a"', '1'), { a: '1' }],
    ['body cut off in a value', '--XB\r\nContent-Disposition: form-data; name="a"\r\n\r\n1', { a: '1' }],
    ['folded header', '--XB\r\nContent-Disposition: form-data;\r\n name="a"\r\n\r\n1\r\n' + END, { a: '1' }],
    ['LF line ends', '--XB\nContent-Disposition: form-data; name="a"\n\n1\n--XB--\n', { a: '1' }],
    ['bare name', part('form-data; name=a', '1') + END, { a: '1' }],
    ['single quotes, escaped quote', part("form-data; name='a'", '1') + part('form-data; name="b\\"c"', '2') + END, { a: '1', 'b"c': '2' }],
    ['attachment', part('attachment; name="a"', '1') + END, { a: '1' }],
    ['part without Content-Disposition skipped', '--XB\r\nContent-Type: text/plain\r\n\r\nx\r\n' + part('form-data; name="b"', '2') + END, { b: '2' }],
    ['part without name or filename ends the body', part('form-data; name="a"', '1') + part('form-data', 'x') + part('form-data; name="b"', '2') + END, { a: '1' }],
    ['comma before boundary', part('form-data; name="a"', '1') + END, { a: '1' }, 'multipart/form-data, boundary=XB'],
    ['boundary in any case', part('form-data; name="a"', '1') + END, { a: '1' }, 'multipart/form-data; BOUNDARY="XB"'],
    ['no boundary', part('form-data; name="a"', '1') + END, {}, 'multipart/form-data'],
    ['a boundary of another case matches no line', part('form-data; name="a"', '1') + END, {}, 'multipart/form-data; boundary=xb'],
    ['filename* alone is no file (PHP reads only filename)', part("form-data; name=\"f\"; filename*=UTF-8''a.txt", 'x') + END, { f: 'x' }],
    ['%22 stays as sent in a name', part('form-data; name="a%22b"', '1') + END, { 'a%22b': '1' }],
  ];
  for (const [label, body, expected, type] of cases) {
    const r = await multipart(app, body, type);
    assert.equal(r.status, 200, label);
    assert.deepEqual(r.params, expected, label);
  }
});

test('regression: an uploaded file kept the path the client sent ("../../etc/passwd", "C:\\\\x\\\\y.txt"); PHP keeps the basename, as UploadedFile::getClientOriginalName gives it', async () => {
  const { app } = testApp({ env: 'prod', routes });
  const body = part('form-data; name="a"; filename="../../etc/passwd"', 'x')
    + part('form-data; name="b"; filename="C:\\x\\y.txt"', 'yy', ['Content-Type: text/plain; charset=utf-8'])
    + part('form-data; name="c"; filename="dir/sub\\z.png"', '', ['Content-Type: image/png'])
    + END;
  const r = await multipart(app, body);
  assert.deepEqual(r.params, {
    a: { file: 'passwd', size: 1, type: 'application/octet-stream' },
    b: { file: 'y.txt', size: 2, type: 'text/plain' },
    c: { file: 'z.png', size: 0, type: 'image/png' },
  });
});

test('regression: max_file_uploads (20) was not applied, and every part of a 1 MB multipart body was parsed before the 1000-variable bound; PHP skips files past 20 and stops after max_multipart_body_parts (1020) parts', async () => {
  const { app, lines } = testApp({ env: 'prod', routes, logFormat: 'json' });
  let files = '';
  for (let i = 0; i < 25; i++) files += part(`form-data; name="f[]"; filename="${i}.txt"`, String(i));
  const r = await multipart(app, files + part('form-data; name="after"', 'kept') + END);
  const list = (r.params as { f: { file: string }[]; after: string });
  assert.equal(list.f.length, 20, 'the first 20 files');
  assert.equal(list.f[19]!.file, '19.txt');
  assert.equal(list.after, 'kept', 'fields after the skipped files are still read');
  assert.ok(records(lines).some((l) => l.level_name === 'WARNING' && /Maximum number of allowable file uploads/.test(l.message)));

  // 5,000 tiny parts, files and fields in turn: only the first 1020 parts are read (510 of each), of
  // which 20 files are kept.
  lines.length = 0;
  let many = '';
  for (let i = 0; i < 2500; i++) many += part(`form-data; name="f${i}"; filename="x"`, 'x') + part(`form-data; name="v${i}"`, 'v');
  const big = await multipart(app, many + END);
  assert.equal(big.status, 200);
  const keys = Object.keys(big.params as object);
  assert.equal(keys.filter((k) => k.startsWith('f')).length, 20);
  assert.deepEqual(keys.filter((k) => k.startsWith('v')), Array.from({ length: 510 }, (_, i) => `v${i}`));
  const warnings = records(lines).filter((l) => l.level_name === 'WARNING').map((l) => l.message);
  assert.ok(warnings.some((m) => /Multipart body parts limit exceeded 1020/.test(m)), warnings.join('\n'));
  // A file after 1100 fields (files do not count against max_input_vars) is past the parts limit.
  let fields = '';
  for (let i = 0; i < 1100; i++) fields += part(`form-data; name="v${i}"`, 'v');
  const late = await multipart(app, fields + part('form-data; name="late"; filename="late.txt"', 'x') + END);
  assert.equal(Object.keys(late.params as object).length, 1000);
  assert.ok(!('late' in (late.params as object)));
});

test('regression: a file cut off by the end of the body was a complete File, a file over the MAX_FILE_SIZE field was kept, and a file under a name with unpaired brackets was repaired; PHP gives UPLOAD_ERR_PARTIAL / UPLOAD_ERR_FORM_SIZE (null here) and skips the last', async () => {
  const { app } = testApp({ env: 'prod', routes });
  const cut = await multipart(app, part('form-data; name="a"', '1') + '--XB\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\n\r\nhalf of it');
  assert.deepEqual(cut.params, { a: '1', f: null });
  const sized = await multipart(app, part('form-data; name="MAX_FILE_SIZE"', '3') + part('form-data; name="small"; filename="s"', 'abc') + part('form-data; name="large"; filename="l"', 'abcd') + END);
  assert.deepEqual(sized.params, { MAX_FILE_SIZE: '3', small: { file: 's', size: 3, type: 'application/octet-stream' }, large: null });
  const brackets = await multipart(app, part('form-data; name="f["; filename="a"', 'x') + part('form-data; name="g[a]b"; filename="b"', 'x') + part('form-data; name="h[a][]"; filename="c"', 'x') + END);
  assert.deepEqual(brackets.params, { h: { a: [{ file: 'c', size: 1, type: 'application/octet-stream' }] } });
});

test('regression: a field sent after a file of the same name replaced the file; PHP protects an uploaded file\'s name, so the file stays', async () => {
  const { app } = testApp({ env: 'prod', routes });
  const r = await multipart(app, part('form-data; name="avatar"; filename="me.png"', 'png', ['Content-Type: image/png']) + part('form-data; name="avatar"', 'http://evil/x.png') + part('form-data; name="other"', 'ok') + END);
  assert.deepEqual(r.params, { avatar: { file: 'me.png', size: 3, type: 'image/png' }, other: 'ok' });
  assert.ok(parsed.avatar instanceof File);
});

test('regression: empty pairs of a form body ("&&") did not count against max_input_vars; PHP\'s $_POST counts them, so a variable after 1000 of them is dropped', async () => {
  const { app, lines } = testApp({ env: 'prod', routes, logFormat: 'json' });
  const r = await send(app, '/echo', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' + '&'.repeat(1000) + 'late=1' });
  assert.deepEqual(await r.json(), { a: '1' });
  assert.equal(records(lines).filter((l) => l.level_name === 'WARNING').length, 1);
  // The query string skips empty pairs uncounted, as $_GET's strtok does.
  const q = await send(app, '/echo?' + 'a=1' + '&'.repeat(1000) + 'late=1', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'late=2' });
  assert.deepEqual(await q.json(), { late: '2' });
});

test('urlencoded and multipart bodies read as PHP reads them (checks that matched before)', async () => {
  const { app } = testApp({ env: 'prod', routes });
  const form = async (body: string, type = 'application/x-www-form-urlencoded') => (await send(app, '/echo', { method: 'POST', headers: { 'content-type': type }, body })).json();
  assert.deepEqual(await form('a=b+c&d=e%20f&x=%zz&y=%&z=%4'), { a: 'b c', d: 'e f', x: '%zz', y: '%', z: '%4' });
  assert.deepEqual(await form('a%00b=1&c=x%00y'), { a: '1', c: 'x\u0000y' });
  assert.deepEqual(await form('a.b=1&a[b.c]=3&x[y z]=4&a[=5'), { a_b: '1', a: { 'b.c': '3' }, x: { 'y z': '4' }, a_: '5' });
  assert.deepEqual(await form('l[]=1&l[]=2&m[1]=x&m[01]=y&[]=1&=x&n&&o=1&o=2'), { l: ['1', '2'], m: { 1: 'x', '01': 'y' }, n: '', o: '2' });
  assert.deepEqual(await form('a=1', 'APPLICATION/X-WWW-FORM-URLENCODED;charset=ISO-8859-1'), { a: '1' });
  const r = await multipart(app, part('form-data; name="j"', '{"x":1}', ['Content-Type: application/json']) + part('form-data; name="e"; filename=""', '') + part('form-data; name="z"; filename="z"', '', ['Content-Type: text/csv']) + part('form-data; name="u.v[w.x]"', '1') + END);
  assert.deepEqual(r.params, { j: '{"x":1}', e: null, z: { file: 'z', size: 0, type: 'text/csv' }, u_v: { 'w.x': '1' } });
});
