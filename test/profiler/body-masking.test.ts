/**
 * Masking of raw request bodies and secret names (CONTRACT §6.2: secrets masked before storage): bodies
 * that are neither valid JSON nor a form are masked by scanning for field names, which must find what
 * the parsed-parameter masking finds, on any input, in time linear in its size.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isSecretName, maskContent, maskQuerySecrets } from '../../src/debug/profiler/mask.ts';
import { isSecretKey } from '../../src/security/mask.ts';
import { HttpResponse } from '../../src/index.ts';
import { get, profiledApp, profileOf } from './support.ts';

const LIMIT = 256 * 1024;
const CANARY = 'CANARY-VALUE';

describe('raw body masking', () => {
  // The old patterns needed time quadratic in these bodies' size: minutes for 256 KB (the size the
  // profiler masks at most), the event loop blocked. Linear scans finish them at once. They run in a
  // child process with a deadline far above what a linear scan needs, so a quadratic one fails the
  // test instead of hanging the run; no time is measured.
  test('regression: a long run of name characters in a body blocked the process while the profile masked it (quadratic patterns)', async () => {
    const script = fileURLToPath(new URL('./fixtures/mask-child.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const deadline = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(deadline);
    assert.equal(out, 'done', `still masking after 20 s, or failed: exit ${code} ${err}`);
  });

  test('regression: raw bodies were masked less than body parameters (multipart pass, multi-line values, invalid JSON, bracket names)', () => {
    const multipart = [
      '--XyZ',
      'Content-Disposition: form-data; name="pass"',
      '',
      CANARY,
      '--XyZ',
      'Content-Disposition: form-data; name="private_key"',
      'Content-Type: text/plain',
      '',
      '-----BEGIN PRIVATE KEY-----',
      CANARY,
      '-----END PRIVATE KEY-----',
      '--XyZ',
      'Content-Disposition: form-data; name="client_secret"',
      '',
      `${CANARY}\n${CANARY}`,
      '--XyZ',
      'Content-Disposition: form-data; name="user"',
      '',
      'ada',
      '--XyZ--',
    ].join('\r\n');
    const masked = maskContent(multipart, 'multipart/form-data; boundary=XyZ', LIMIT);
    assert.doesNotMatch(masked, /CANARY|BEGIN PRIVATE KEY|END PRIVATE KEY/);
    assert.match(masked, /name="user"\r\n\r\nada\r\n--XyZ--$/, 'other fields and the boundaries stay');
    assert.equal(masked.split('--XyZ').length, multipart.split('--XyZ').length);

    for (const [body, type] of [
      [`{'password':'${CANARY}', 'a': 1}`, 'application/json'],
      [`{"pass\\u0077ord":"${CANARY}"`, 'application/json'],
      [`{"user": {"api_key": "${CANARY}"}, "broken": }`, 'application/json'],
      [`pass[]=${CANARY}&user[pass]=${CANARY}&sid[]=${CANARY}&user[auth]=${CANARY}&compass=north`, 'application/x-www-form-urlencoded'],
      [`pass[]=${CANARY}&user[pass]=${CANARY}&compass=north`, 'text/plain'],
    ]) {
      const out = maskContent(body!, type!, LIMIT);
      assert.doesNotMatch(out, /CANARY/, body);
      if (body!.includes('compass')) assert.match(out, /compass=north/, 'a word that merely contains "pass" is no secret');
    }
  });

  test('regression: pass, auth and sid were secret only as exact names, not as bracket segments', () => {
    for (const name of ['pass', '_pass', 'pass[]', 'user[pass]', 'user[pass][]', 'auth', 'user[auth]', 'sid', 'sid[]']) {
      assert.ok(isSecretName(name), name);
    }
    for (const name of ['pass[]', 'user[pass]']) assert.ok(isSecretKey(name), name);
    for (const name of ['compass', 'passage', 'author', 'side', 'user[passage]']) assert.ok(!isSecretName(name), name);
    const url = maskQuerySecrets(`/p?pass[]=${CANARY}&user[auth]=${CANARY}&sid[]=${CANARY}&q=1`);
    assert.doesNotMatch(url, /CANARY/);
    assert.match(url, /&q=1$/);
  });
});

describe('multipart/form-data bodies', () => {
  test('regression: uploaded files\' bytes (a private key, an .env file) were stored in the profile\'s content and shown on the Request panel', async () => {
    const app = profiledApp({ routes: [{ name: 'upload', path: '/upload', methods: ['POST'], controller: () => HttpResponse.html('<html><body>uploaded</body></html>') }] });
    const key = `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}\n-----END OPENSSH PRIVATE KEY-----\n`;
    const env = `STRIPE_KEY=sk_live_${CANARY}\n`;
    const form = new FormData();
    form.append('title', 'my keys');
    form.append('attachment', new Blob([key], { type: 'application/octet-stream' }), 'id_ed25519');
    form.append('env', new Blob([env], { type: 'text/plain' }), '.env');
    const res = await get(app, '/upload', { method: 'POST', body: form });
    assert.equal(res.status, 200);
    const p = await profileOf(app, res);
    assert.doesNotMatch(JSON.stringify(p), /CANARY|PRIVATE KEY/);
    // As in Symfony (php://input is empty for multipart/form-data): no raw content, the length received,
    // and the fields and files in the body parameters.
    assert.equal(p.request.content, '');
    assert.ok(p.request.contentLength > 200, String(p.request.contentLength));
    assert.deepEqual(p.request.body, {
      title: 'my keys',
      attachment: { file: 'id_ed25519', size: key.length, type: 'application/octet-stream' },
      env: { file: '.env', size: env.length, type: 'text/plain' },
    });
    const panel = await (await get(app, `/_profiler/${p.token}?panel=request`)).text();
    assert.doesNotMatch(panel, /CANARY|PRIVATE KEY/);
    assert.match(panel, /Not kept for multipart\/form-data \([^)]+ received\)/);
  });

  test('regression: a multipart body whose Content-Type ends its media type at a comma or a space (multipart/form-data, boundary=X), which PHP and the body listener parse, was stored whole in the profile, files included', async () => {
    const app = profiledApp({ routes: [{ name: 'upload', path: '/upload', methods: ['POST'], controller: () => HttpResponse.html('<html><body>uploaded</body></html>') }] });
    for (const type of ['multipart/form-data, boundary=XyZ', 'multipart/form-data boundary=XyZ', 'Multipart/Form-Data; boundary=XyZ']) {
      const body = ['--XyZ', 'Content-Disposition: form-data; name="title"', '', 'my keys', '--XyZ', 'Content-Disposition: form-data; name="key"; filename="id_ed25519"', 'Content-Type: application/octet-stream', '', `PRIVATE KEY ${CANARY}`, '--XyZ--', ''].join('\r\n');
      const res = await get(app, '/upload', { method: 'POST', headers: { 'content-type': type }, body });
      assert.equal(res.status, 200, type);
      const p = await profileOf(app, res);
      assert.doesNotMatch(JSON.stringify(p), /CANARY|PRIVATE KEY/, type);
      assert.equal(p.request.content, '', type);
      assert.deepEqual(p.request.body, { title: 'my keys', key: { file: 'id_ed25519', size: `PRIVATE KEY ${CANARY}`.length, type: 'application/octet-stream' } }, type);
    }
  });
});
