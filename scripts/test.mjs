// Runs every test/**/*.test.ts with node:test under c8 (coverage summary at the end).
// Reporter: @reporters/github under GitHub Actions (plus spec), spec otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

// The browser tests drive Debian's Chromium. On a fresh Debian machine or container, where this runs as root,
// install it as .ci/run does; elsewhere say what is missing (the browser tests then fail saying the same).
function ensureChromium() {
  if (process.env.CHROMIUM_PATH || existsSync('/usr/bin/chromium')) return;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (process.getuid?.() !== 0 || !hasApt) {
    console.warn('Chromium is not installed: the browser tests need it (apt-get install -y chromium, or set CHROMIUM_PATH).');
    return;
  }
  console.log('Installing Debian\'s chromium for the browser tests (apt-get)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
    if (spawnSync('apt-get', args, { stdio: 'inherit', env }).status !== 0) break;
  }
}

const only = process.argv.slice(2);
if (only.length === 0 || only.some((file) => file.includes('browser'))) ensureChromium();
const files = only.length ? only : collect('test');
const reporters = process.env.GITHUB_ACTIONS
  ? ['--test-reporter=@reporters/github', '--test-reporter-destination=stdout', '--test-reporter=spec', '--test-reporter-destination=stdout']
  : ['--test-reporter=spec', '--test-reporter-destination=stdout'];

const args = [
  'c8', '--reporter=text-summary', '--reporter=text', '--include=src/**',
  process.execPath, '--import', 'tsx', '--test', '--test-timeout=60000', ...reporters, ...files,
];
const result = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '' } });
process.exit(result.status ?? 1);
