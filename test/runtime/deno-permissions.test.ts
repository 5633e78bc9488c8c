import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('regression: on Deno without --allow-env, createApp with explicit options failed with NotCapable (APP_DEBUG); unreadable variables read as unset', () => {
  const dir = mkdtempSync(join(tmpdir(), 'irms-deno-env-'));
  try {
    const script = join(dir, 'embed.mjs');
    writeFileSync(
      script,
      [
        `import { createApp, HttpResponse } from ${JSON.stringify(join(root, 'dist/index.js'))};`,
        "const app = createApp({ env: 'test', logSink: () => {}, routes: [{ name: 'hi', path: '/hi', controller: () => HttpResponse.text('hi') }] });",
        "const res = await app.fetch(new Request('http://localhost/hi'));",
        'console.log(res.status, await res.text(), app.config.debug, app.config.port);',
      ].join('\n'),
    );
    // Only reading the bundle is allowed: no environment, no network.
    const run = spawnSync(join(root, 'node_modules/.bin/deno'), ['run', '--no-prompt', `--allow-read=${root}`, script], { encoding: 'utf8', env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', APP_DEBUG: '0', PORT: '9999' } });
    assert.equal(run.status, 0, run.stderr);
    // The defaults apply (test → debug on, port 8000): the variables set outside were not readable.
    assert.equal(run.stdout.trim(), '200 hi true 8000');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
