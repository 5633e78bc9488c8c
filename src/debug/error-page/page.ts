/**
 * The debug exception page (CONTRACT §5.1; Symfony's exception_full.html.php): a leading comment and
 * the title `MSG (CODE TEXT)`, the hierarchy (deepest cause first), `HTTP CODE TEXT`, the message,
 * then the tabs Exceptions, Logs and Stack Traces. Every dynamic string goes through `esc` (escape.ts).
 */
import { escapeHtml } from './escape.ts';
import { LEVELS } from '../../log/levels.ts';
import { highlightLine, type HighlightState } from './highlight.ts';
import type { ErrorPageModel, ExceptionView, FrameView, LogView } from './model.ts';
import { BODY_SCRIPT, HEAD_SCRIPT } from './script.ts';
import { STYLES } from './styles.ts';

const esc = escapeHtml;

/** Messages longer than this get the smaller heading (Symfony's `long` class). */
const LONG_MESSAGE = 180;

const LOGO = `<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="1" y="1" width="22" height="22" rx="6" fill="#4b47d6"/><path d="M7 7h2.4v10H7zM11.2 7h3.6a3 3 0 0 1 .9 5.86L17.6 17h-2.7l-1.6-3.8h-.1V17h-2zm2 1.9v2.5h1.3a1.25 1.25 0 0 0 0-2.5z" fill="#fff"/></svg>`;
const FAVICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect x="1" y="1" width="22" height="22" rx="6" fill="#c22f3e"/><path d="M11 5h2v9h-2zM11 16h2v2h-2z" fill="#fff"/></svg>')}`;

const FAVICON_ATTR = esc(FAVICON);

export function renderDebugPage(model: ErrorPageModel): string {
  const { head, tail } = renderDebugPageParts(model);
  return head + tail;
}

/**
 * The page in two parts: `tail` starts with the page's last `</body>` (the headline after it is
 * escaped, so it has none), where the debug toolbar goes.
 */
export function renderDebugPageParts(model: ErrorPageModel): { head: string; tail: string } {
  const main = model.chain[0] ?? { class: 'Error', message: '', frames: [], properties: null, thrown: null, errors: [] };
  const headline = `${esc(main.message)} (${model.status} ${esc(model.statusText)})`;
  const n = model.chain.length;
  const errorLogs = model.logs.filter((l) => l.level >= LEVELS.error).length;

  const head = `<!-- ${headline} -->
<!DOCTYPE html>
<html lang="en" class="no-js">
<head>
<meta charset="UTF-8" />
<meta name="robots" content="noindex,nofollow" />
<meta name="viewport" content="width=device-width,initial-scale=1" />
<title>${headline}</title>
<link rel="icon" href="${FAVICON_ATTR}" />
<script>${HEAD_SCRIPT}</script>
<style>${STYLES}</style>
</head>
<body>
<header class="topbar"><div class="container">
<span class="brand">${LOGO}<span>irms-web</span><span class="brand-sub">Exception</span></span>
<span class="topbar-actions"><span>debug mode</span><button type="button" class="theme-toggle"><span aria-hidden="true">&#9680;</span><span class="theme-label">Theme</span></button></span>
</div></header>
${summary(model, main)}
<main class="container">
<nav class="tabs" role="tablist" aria-label="Error details">
<a class="tab" role="tab" href="#tab-exceptions" data-tab="tab-exceptions" aria-controls="tab-exceptions" aria-selected="true">${n > 1 ? `Exceptions <span class="badge">${n}</span>` : 'Exception'}</a>
<a class="tab${model.logs.length === 0 ? ' disabled' : ''}" role="tab" href="#tab-logs" data-tab="tab-logs" aria-controls="tab-logs" aria-selected="false">Logs${errorLogs > 0 ? ` <span class="badge status-error">${errorLogs}</span>` : ''}</a>
<a class="tab" role="tab" href="#tab-traces" data-tab="tab-traces" aria-controls="tab-traces" aria-selected="false">${n > 1 ? `Stack Traces <span class="badge">${n}</span>` : 'Stack Trace'}</a>
</nav>
<section id="tab-exceptions" class="tab-panel active" role="tabpanel" aria-label="Exceptions">
<h2 class="panel-title">${n > 1 ? `Exceptions <span class="badge">${n}</span>` : 'Exception'}</h2>
${exceptionsPanel(model)}
</section>
<section id="tab-logs" class="tab-panel" role="tabpanel" aria-label="Logs">
<h2 class="panel-title">Logs${errorLogs > 0 ? ` <span class="badge status-error">${errorLogs}</span>` : ''}</h2>
${logsPanel(model)}
</section>
<section id="tab-traces" class="tab-panel" role="tabpanel" aria-label="Stack Traces">
<h2 class="panel-title">${n > 1 ? `Stack Traces <span class="badge">${n}</span>` : 'Stack Trace'}</h2>
${tracesPanel(model)}
</section>
</main>
<footer class="container">This page is shown because debug mode is on (APP_DEBUG=1). Never enable it on a server others can reach.</footer>
<script>${BODY_SCRIPT}</script>
`;
  return { head, tail: `</body>
</html>
<!-- ${headline} -->
` };
}

function summary(model: ErrorPageModel, main: ExceptionView): string {
  const n = model.chain.length;
  // Deepest cause first, each linked to its block: previous k (0-based) is box k+2, the main one box 1.
  const links: string[] = [];
  for (let i = n - 1; i >= 0; i--) {
    links.push(`<a href="#trace-box-${i + 1}"><abbr title="${esc(model.chain[i].class)}">${esc(model.chain[i].class)}</abbr></a>`);
  }
  const message = main.message;
  const classes = ['exception-summary', 'summary', model.status >= 500 ? 'status-5xx' : 'status-4xx'];
  if (!message) classes.push('exception-without-message');
  const req = model.request;
  const requestLine = req
    ? `<p class="request-line">${req.method || req.path ? `<span><span class="label">Request</span> <code>${esc(req.method)} ${esc(req.path)}</code></span>` : ''}${req.route ? `<span><span class="label">Route</span> <code>${esc(req.route)}</code></span>` : ''}${req.controller ? `<span><span class="label">Controller</span> <code>${esc(req.controller)}</code></span>` : ''}</p>`
    : '';
  return `<section class="${classes.join(' ')}"><div class="container">
<h2 class="exception-hierarchy">${links.join('<span class="chevron" aria-hidden="true">&#8250;</span>')}</h2>
<h2 class="exception-http">HTTP ${model.status} <small>${esc(model.statusText)}</small></h2>
<h1 class="exception-message${message.length > LONG_MESSAGE ? ' long' : ''}">${message ? esc(message).replace(/\r\n|\r|\n/g, '<br />') : '(no message)'}</h1>
${requestLine}
</div></section>`;
}

/** Which blocks start open: Symfony opens every block but the last that has an application frame; else the first. */
function openBlocks(chain: ExceptionView[]): boolean[] {
  const open = chain.map((e, i) => i < chain.length - 1 && e.frames.some((f) => !f.vendor));
  if (!open.some(Boolean) && open.length > 0) open[0] = true;
  return open;
}

function exceptionsPanel(model: ErrorPageModel): string {
  const open = openBlocks(model.chain);
  const mainMessage = model.chain[0]?.message ?? '';
  return model.chain
    .map((e, i) => {
      const showMessage = i > 0 && e.message !== '' && e.message !== mainMessage;
      const first = e.frames[0];
      return `<details class="trace-box" id="trace-box-${i + 1}"${open[i] ? ' open' : ''}>
<summary><h3 class="trace-class">${esc(e.class)}${model.chain.length > 1 ? `<span class="trace-index">${i === 0 ? 'main exception' : `previous ${i}`}</span>` : ''}</h3>${showMessage ? `<span class="trace-message">${esc(e.message)}</span>` : ''}${first ? `<span class="trace-where">at <code>${esc(first.path)}:${first.line}</code></span>` : ''}</summary>
<div class="trace-body">
${thrownValue(e)}${e.errors.length ? aggregateMembers(e) : ''}${e.properties ? `<div class="kv-title">Properties</div><pre class="json">${esc(e.properties)}</pre>` : ''}
${framesList(e.frames)}
</div>
</details>`;
    })
    .reduce(joinLines, null) ?? '';
}

function thrownValue(e: ExceptionView): string {
  if (!e.thrown) return '';
  return `<div class="callout hint">A <strong>${esc(e.thrown.type)}</strong> was thrown instead of an Error. JavaScript records no stack trace for such values, so the frames below show where it was caught. Throw an <code>Error</code> to see where it came from.</div>
<div class="kv-title">Thrown value</div><pre class="json">${esc(e.thrown.json)}</pre>`;
}

function aggregateMembers(e: ExceptionView): string {
  return `<div class="kv-title">Aggregated errors</div><ul>${e.errors.map((m) => `<li><strong>${esc(m.class)}</strong>: ${esc(m.message)}</li>`).join('')}</ul>`;
}

/** Frame list HTML by frames array: the model shares one per throw site (see model.ts). */
const framesHtml = new WeakMap<readonly FrameView[], string>();

function framesList(frames: FrameView[]): string {
  let html = framesHtml.get(frames);
  if (html === undefined) {
    html = renderFramesList(frames);
    framesHtml.set(frames, html);
  }
  return html;
}

function renderFramesList(frames: FrameView[]): string {
  if (frames.length === 0) return '<p class="empty">No stack frames.</p>';
  const firstApp = frames.findIndex((f) => !f.vendor && f.excerpt);
  const out: string[] = [];
  for (let i = 0; i < frames.length; ) {
    if (frames[i].vendor) {
      let j = i;
      while (j < frames.length && frames[j].vendor) j++;
      const group = frames.slice(i, j).map((f) => `<li class="frame frame-vendor">${frameLine(f)}</li>`).join('');
      out.push(`<li><details class="vendor-group"><summary>${j - i} vendor frame${j - i === 1 ? '' : 's'} (node_modules, runtime internals)</summary><ol class="frames">${group}</ol></details></li>`);
      i = j;
      continue;
    }
    const f = frames[i];
    if (f.excerpt) {
      out.push(`<li class="frame frame-app"><details${i === firstApp ? ' open' : ''}><summary>${frameHead(f)}</summary>${excerptHtml(f)}</details></li>`);
    } else {
      out.push(`<li class="frame frame-app">${frameLine(f)}</li>`);
    }
    i++;
  }
  return `<ol class="frames">${out.join('\n')}</ol>`;
}

function frameHead(f: FrameView): string {
  const fn = f.fn ? `<span class="frame-fn">${esc(f.fn)}</span>` : '<span class="frame-fn anonymous">(top level)</span>';
  const gen = f.generated ? `<span class="frame-gen" title="mapped from the bundle">&#8592; ${esc(f.generated)}</span>` : '';
  return `${fn}<span class="frame-file" title="${esc(f.file)}">${esc(f.path)}<span class="frame-lineno">:${f.line}</span>:${f.column}</span>${gen}`;
}

function frameLine(f: FrameView): string {
  return `<div class="frame-line">${frameHead(f)}</div>`;
}

/** Highlighted excerpts by file and line: the same frames come back on every 404 (bounded). */
const excerptCache = new Map<string, string>();
const MAX_CACHED_EXCERPTS = 256;

function excerptHtml(f: FrameView): string {
  const excerpt = f.excerpt ?? [];
  const key = `${f.file}\0${f.line}\0${excerpt.length}\0${excerpt[0]?.number ?? 0}`;
  const hit = excerptCache.get(key);
  if (hit !== undefined) return hit;
  const state: HighlightState = { inComment: false, inTemplate: false };
  const lines = excerpt
    .map((l) => `<span class="line${l.current ? ' current' : ''}"><span class="ln">${l.number}</span>${highlightLine(l.text, state)}</span>`)
    .join('');
  const html = `<pre class="excerpt"><code>${lines}</code></pre>`;
  if (excerptCache.size >= MAX_CACHED_EXCERPTS) excerptCache.delete(excerptCache.keys().next().value as string);
  excerptCache.set(key, html);
  return html;
}

function levelClass(level: number): string {
  if (level >= LEVELS.error) return 'level-error';
  if (level >= LEVELS.warning) return 'level-warning';
  if (level >= LEVELS.notice) return 'level-notice';
  if (level >= LEVELS.info) return 'level-info';
  return 'level-debug';
}

function rowClass(level: number): string {
  if (level >= LEVELS.error) return 'status-error';
  if (level >= LEVELS.warning) return 'status-warning';
  return 'status-normal';
}

function logsPanel(model: ErrorPageModel): string {
  if (model.logs.length === 0) return '<p class="empty">No log messages</p>';
  const filters = [
    [0, 'All'],
    [LEVELS.info, 'Info and up'],
    [LEVELS.warning, 'Warnings and up'],
    [LEVELS.error, 'Errors'],
  ] as const;
  const rows = model.logs.map(logRow).join('\n');
  return `<div class="log-filters" role="group" aria-label="Filter by level">${filters
    .map(([min, label]) => `<button type="button" class="filter" data-min-level="${min}" aria-pressed="${min === 0}">${label}</button>`)
    .join('')}<span class="log-count">${model.logs.length} messages</span></div>
<table class="logs">
<colgroup><col class="c-level" /><col class="c-channel" /><col /></colgroup>
<thead><tr><th scope="col">Level</th><th scope="col">Channel</th><th scope="col">Message</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>${model.droppedLogs > 0 ? `<p class="dropped">${model.droppedLogs} more records were logged but not kept (per-request limit).</p>` : ''}`;
}

function logRow(log: LogView): string {
  const time = log.datetime ? `<time class="log-time" datetime="${esc(log.datetime)}">${esc(log.datetime.slice(11, 23))}</time>` : '';
  return `<tr class="${rowClass(log.level)}" data-level="${log.level}"><td><span class="level ${levelClass(log.level)}">${esc(log.levelName)}</span>${time}</td><td>${esc(log.channel)}</td><td><div class="log-message">${esc(log.message)}</div>${log.context ? `<pre class="log-context">${esc(log.context)}</pre>` : ''}</td></tr>`;
}

/** The plain-text trace of one exception (Stack Traces tab, problem+json `trace`). */
export function plainTrace(e: ExceptionView): string {
  const lines = [`${e.class}:`];
  if (e.message) lines.push(e.message);
  lines.push('');
  return e.frames.length > 0 ? `${lines.join('\n')}\n${traceLines(e.frames)}` : lines.join('\n');
}

function traceLines(frames: readonly FrameView[]): string {
  return frames.map((f) => (f.fn ? `  at ${f.fn} (${f.path}:${f.line}:${f.column})` : `  at ${f.path}:${f.line}:${f.column}`)).join('\n');
}

/** Escaped frame lines of the plain trace, by frames array (shared per throw site). */
const escapedTraceLines = new WeakMap<readonly FrameView[], string>();

/** esc(plainTrace(e)), with the frame lines escaped once per frames array. */
function escapedPlainTrace(e: ExceptionView): string {
  const head = esc(e.message ? `${e.class}:\n${e.message}\n` : `${e.class}:\n`);
  if (e.frames.length === 0) return head;
  let lines = escapedTraceLines.get(e.frames);
  if (lines === undefined) {
    lines = esc(traceLines(e.frames));
    escapedTraceLines.set(e.frames, lines);
  }
  return `${head}\n${lines}`;
}

function tracesPanel(model: ErrorPageModel): string {
  const n = model.chain.length;
  return model.chain
    .map((e, i) => {
      // The main exception is [N/N], the deepest cause [1/N]; no label with a single exception.
      const label = n > 1 ? `[${n - i}/${n}] ` : '';
      return `<div class="trace-text"><div class="trace-text-head"><h3>${label}${esc(e.class)}</h3><button type="button" class="copy" data-copy="trace-text-${i + 1}">Copy</button></div>
<pre class="stacktrace" id="trace-text-${i + 1}">${escapedPlainTrace(e)}</pre></div>`;
    })
    .reduce(joinLines, null) ?? '';
}

/**
 * `parts.join('\n')` by concatenation: join copies its parts into a new string, and these parts are
 * the largest of the page (frame lists with code); concatenation only links them, and the page is
 * copied once, when it is written.
 */
function joinLines(joined: string | null, part: string): string {
  return joined === null ? part : `${joined}\n${part}`;
}
