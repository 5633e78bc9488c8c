// Links between the repository's Markdown files: every relative link names a file that exists, and every
// `#anchor` names a heading of its target, as GitHub derives heading anchors. BENCHMARKS.md and
// bench/HISTORY.md link to each other's sections by the dozen, and a renamed heading breaks them silently.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
/** The Markdown a reader opens: the top level, docs/, bench/ and each example's folder. */
const FILES = ['.', 'docs', 'bench', ...readdirSync(join(ROOT, 'examples')).map((name) => `examples/${name}`)].flatMap((dir) =>
  existsSync(join(ROOT, dir)) ? readdirSync(join(ROOT, dir)).filter((name) => name.endsWith('.md')).map((name) => (dir === '.' ? name : `${dir}/${name}`)) : [],
);

/** GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, `_`, `-` and spaces kept), spaces as `-`. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

/** The text outside fenced code blocks, where headings and links mean something. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** Every heading's anchor; a repeated heading gets `-1`, `-2`… as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(match[1]!);
    const count = seen.get(base);
    seen.set(base, (count ?? -1) + 1);
    anchors.add(count === undefined ? base : `${base}-${count + 1}`);
  }
  return anchors;
}

function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

test('anchorOf derives GitHub\'s anchors: punctuation dropped, spaces as dashes, letters of any script kept', () => {
  assert.equal(anchorOf('01:22 (2026-11-24): the session\'s last build'), '0122-2026-11-24-the-sessions-last-build');
  assert.equal(anchorOf('Why the throughput goals are still missed — measured, not guessed'), 'why-the-throughput-goals-are-still-missed--measured-not-guessed');
  assert.equal(anchorOf('Results: memory (debug mode, 20,000 mixed requests through `app.fetch`)'), 'results-memory-debug-mode-20000-mixed-requests-through-appfetch');
  assert.deepEqual([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n## A\n')], ['a', 'a-1', 'a-2']);
});

for (const file of FILES) {
  test(`${file}: every relative link and anchor resolves`, () => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      const [path, anchor] = link.split('#', 2) as [string, string | undefined];
      const target = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), path);
      if (!existsSync(target)) {
        broken.push(`${link}: no file ${relative(ROOT, target)}`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
        broken.push(`${link}: no heading with that anchor in ${relative(ROOT, target)}`);
      }
    }
    assert.deepEqual(broken, []);
  });
}
