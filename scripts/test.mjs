// Runs every test/**/*.test.ts with node:test under c8 (coverage summary at the end).
// Reporter: @reporters/github under GitHub Actions (plus spec), spec otherwise.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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

const only = process.argv.slice(2);
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
