/** The profile's panels (CONTRACT §6.4): request, performance, exception, logs, events, routing, security, session. */
import { LEVELS } from '../../../log/levels.ts';
import { isFrameworkFile, isVendor, parseStack, resolveFrame, stackBelowMessage, stripFileUrl, type ResolvedFrame, type StackFrame } from '../../stack.ts';
import { relativeTo, workingDirectory } from '../../error-page/host-fs.ts';
import { isAnonymousMember, type Profile, type ProfiledException, type ProfiledLogRecord } from '../profile.ts';
import { FLASHES_KEY } from '../../../session/flash-bag.ts';
import { esc, formatBytes, formatMs, jsonBlock, kvTable } from './common.ts';
import type { PanelName, ProfilerUrls } from './layout.ts';
import { groupByHook, HOOK_COLORS, largest, renderWaterfall } from './waterfall.ts';

export interface RouteExplanationRow {
  name: string;
  path: string;
  methods: readonly string[];
  outcome: string;
}

export interface PanelContext {
  urls: ProfilerUrls;
  query: Record<string, unknown>;
  /** The routing explanation for the profile's path and method (current route table), if the router offers one. */
  explain?: (pathInfo: string, method: string) => RouteExplanationRow[];
}

function headersTable(headers: Record<string, string>, empty: string, caption: string): string {
  return kvTable(headers, empty, caption);
}

function cookiesTable(cookies: Profile['request']['cookies'], empty: string, caption: string): string {
  if (cookies.length === 0) return `<h3>${esc(caption)}</h3><p class="pf-empty">${esc(empty)}</p>`;
  const rows = cookies.map((c) => `<tr><th scope="row" class="pf-mono">${esc(c.name)}</th><td class="pf-mono">${esc(c.value)}</td><td class="pf-mono">${esc(c.attributes ?? '')}</td></tr>`).join('');
  return `<h3>${esc(caption)}</h3><table class="pf-kv"><thead><tr><th>Name</th><th>Value (masked)</th><th>Attributes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function requestPanel(profile: Profile): string {
  const r = profile.request;
  const content =
    r.content === null
      ? '<p class="pf-empty">The application did not read the request body.</p>'
      : r.content === ''
        ? r.contentLength > 0
          ? `<p class="pf-empty">Not kept for multipart/form-data (${esc(formatBytes(r.contentLength))} received), as in Symfony: the fields are the POST parameters above, each file described by name, size and type.</p>`
          : '<p class="pf-empty">Request content is empty.</p>'
        : `<pre class="pf-json">${esc(r.content)}</pre>${r.contentTruncated ? `<p class="pf-empty">Cut to a bounded size (${esc(formatBytes(r.contentLength))} received).</p>` : ''}`;
  const others = Object.keys(profile.collectors).length ? kvTable(profile.collectors, '', 'Other collected data') : '';
  const truncated = profile.truncated.length ? `<p class="pf-empty">To keep this profile small, these parts were left out: ${esc(profile.truncated.join(', '))}.</p>` : '';
  return `<h2>Request / Response</h2>
<nav class="pf-tabs" aria-label="Sections"><a href="#pf-request">Request</a><a href="#pf-response">Response</a><a href="#pf-cookies">Cookies</a><a href="#pf-content">Content</a></nav>
${truncated}
<section id="pf-request">
<div class="pf-cards">
<div class="pf-card"><span>Method</span><b>${esc(profile.method)}</b></div>
<div class="pf-card"><span>Status</span><b>${esc(profile.status)}</b></div>
<div class="pf-card"><span>Controller</span><b class="pf-mono">${esc(profile.controller ?? 'n/a')}</b></div>
<div class="pf-card"><span>Locale / format</span><b>${esc(r.locale ?? 'n/a')} / ${esc(r.format ?? 'html')}</b></div>
</div>
${kvTable(r.query, 'No GET parameters.', 'GET Parameters')}
${kvTable(r.body, 'No POST parameters.', 'POST Parameters')}
${kvTable(r.attributes, 'No attributes.', 'Request Attributes')}
${headersTable(r.headers, 'No request headers.', 'Request Headers')}
</section>
<section id="pf-response">
${headersTable(profile.response.headers, 'No response headers.', 'Response Headers')}
</section>
<section id="pf-cookies">
${cookiesTable(r.cookies, 'No request cookies.', 'Request Cookies')}
${cookiesTable(profile.response.cookies, 'No response cookies.', 'Response Cookies')}
</section>
<section id="pf-content">
<h3>Request Content${r.contentType ? ` <span class="pf-badge">${esc(r.contentType)}</span>` : ''}</h3>
${content}
</section>
${others}`;
}

function performancePanel(profile: Profile): string {
  const listenerTime = profile.events.reduce((sum, c) => sum + c.durationMs, 0);
  const groups = groupByHook(profile.events);
  const rows = groups
    .map((g) => {
      const sum = g.calls.reduce((s, c) => s + c.durationMs, 0);
      return `<tr><td><span class="pf-badge" style="background:${HOOK_COLORS[g.hook] ?? '#6b7280'};color:#fff">${esc(g.hook)}</span></td><td>${g.calls.length}</td><td>${esc(formatMs(g.startMs))}</td><td>${esc(formatMs(sum))}</td></tr>`;
    })
    .join('');
  return `<h2>Performance</h2>
<div class="pf-cards">
<div class="pf-card"><span>Total time</span><b>${esc(formatMs(profile.durationMs))}</b></div>
<div class="pf-card"><span>Until kernel.terminate</span><b>${esc(formatMs(profile.totalMs))}</b></div>
<div class="pf-card"><span>Time in listeners</span><b>${esc(formatMs(listenerTime))}</b></div>
<div class="pf-card"><span>Listener calls</span><b>${profile.events.length}</b></div>
<div class="pf-card"><span>Memory (RSS)</span><b>${esc(formatBytes(profile.memory))}</b></div>
</div>
<h3>Execution timeline</h3>
${renderWaterfall(profile)}
<h3>Time per hook</h3>
${rows ? `<table><thead><tr><th>Hook</th><th>Listeners</th><th>Starts at</th><th>Time in listeners</th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="pf-empty">No hooks were traced.</p>'}`;
}

/**
 * A stored stack's frames as the error page shows them (CONTRACT §5.1): through resolveFrame, so a
 * bundle frame the host left unmapped points at `src/*.ts`, with paths relative to the project. Vendor
 * frames (node_modules, `node:`) and irms-web's own frames are greyed alike; the application's stand
 * out. Resolved when the panel is shown, not when the profile is stored: the debug hot path pays nothing.
 */
function frames(stack: string, message: string): string {
  // Frames below the message only: a message line that reads like a frame is no frame.
  const parsed = parseStack(stackBelowMessage(stack, message)).slice(0, 60);
  if (parsed.length === 0) return stack ? `<pre class="pf-json">${esc(stack)}</pre>` : '';
  const root = workingDirectory();
  const items = parsed
    .map((raw) => {
      const f = shownFrame(raw, root);
      const vendor = f.vendor || isFrameworkFile(f.file);
      const title = f.generated ? `${f.file} (mapped from ${relativeTo(root, f.generated.file)}:${f.generated.line}:${f.generated.column})` : f.file;
      return `<li class="${vendor ? 'pf-vendor' : 'pf-app'}" title="${esc(title)}"><span class="pf-fn">${esc(f.fn || '(anonymous)')}</span> at ${esc(f.path)}:${esc(f.line)}</li>`;
    })
    .join('');
  return `<ol class="pf-frames">${items}</ol>`;
}

/** resolveFrame, or the frame as stored when its source map cannot be read. */
function shownFrame(frame: StackFrame, root: string): ResolvedFrame {
  try {
    return resolveFrame(frame, root);
  } catch {
    const file = stripFileUrl(frame.file);
    return { ...frame, file, path: file, vendor: isVendor(file), generated: null };
  }
}

function exceptionPanel(profile: Profile, ctx: PanelContext): string {
  if (!profile.exception) return '<h2>Exception</h2><p class="pf-empty">No exception was thrown and caught during the request.</p>';
  const chain: ProfiledException[] = [];
  for (let e: ProfiledException | null = profile.exception; e && chain.length < 32; e = e.previous) chain.push(e);
  const blocks = chain
    .map(
      (e, i) => `<div class="pf-exception">
<h3>${i > 0 ? 'Caused by ' : ''}${esc(e.class)}${i === 0 ? ` <span class="pf-badge pf-badge-error">${esc(e.status)}</span>` : ''}</h3>
<p class="pf-exc-msg">${esc(e.message)}</p>
<div class="pf-mono">in ${esc(e.file)} line ${esc(e.line)}</div>
${frames(e.stack, e.message)}
</div>`,
    )
    .join('');
  const page = ctx.urls.exception(profile.token);
  // `allow="clipboard-write"`: the permissions policy withholds the Clipboard API from frames unless
  // delegated, and the page's Copy buttons then fell back to a mere selection.
  return `<h2>Exception <span class="pf-badge pf-badge-error">${chain.length} in the chain</span></h2>
${blocks}
<h3>The error page this request answered with <a class="pf-btn" href="${esc(page)}" target="_blank" rel="noopener">open</a></h3>
<iframe class="pf-iframe" src="${esc(page)}" sandbox="allow-scripts" allow="clipboard-write" title="Error page" loading="lazy"></iframe>`;
}

function levelTone(level: number): string {
  return level >= 400 ? 'error' : level >= 300 ? 'warning' : level >= 200 ? 'info' : 'muted';
}

function logsPanel(profile: Profile, ctx: PanelContext): string {
  const levelParam = typeof ctx.query.level === 'string' ? ctx.query.level.toLowerCase() : '';
  const channelParam = typeof ctx.query.channel === 'string' ? ctx.query.channel : '';
  // Own names only: `?level=__proto__` or `constructor` would read the prototype (no number) and hide every record.
  const minLevel = Object.hasOwn(LEVELS, levelParam) ? (LEVELS as Record<string, number>)[levelParam]! : 0;
  const channels = [...new Set(profile.logs.map((l) => l.channel))].sort();
  const shown = profile.logs.filter((l) => l.level >= minLevel && (!channelParam || l.channel === channelParam));
  const countOf = (f: (l: ProfiledLogRecord) => boolean) => profile.logs.filter(f).length;
  const levelOptions = ['', ...Object.keys(LEVELS)]
    .map((name) => `<option value="${esc(name)}"${name === levelParam ? ' selected' : ''}>${name ? `${esc(name)} and above` : 'all levels'}</option>`)
    .join('');
  const channelOptions = ['', ...channels].map((c) => `<option value="${esc(c)}"${c === channelParam ? ' selected' : ''}>${c ? esc(c) : 'all channels'}</option>`).join('');
  const rows = shown
    .map((l, i) => {
      const tone = levelTone(l.level);
      const hasContext = l.context && typeof l.context === 'object' && Object.keys(l.context as object).length > 0;
      const time = l.datetime.slice(11, 23);
      return `<tr class="pf-row-${tone}" data-level="${esc(l.level_name)}" data-channel="${esc(l.channel)}"><td>${i + 1}</td><td class="pf-mono">${esc(time)}</td><td><span class="pf-badge pf-badge-${tone}">${esc(l.level_name)}</span></td><td><span class="pf-badge">${esc(l.channel)}</span></td><td class="pf-msg">${esc(l.message)}${hasContext ? `<details><summary>context</summary>${jsonBlock(l.context)}</details>` : ''}</td></tr>`;
    })
    .join('');
  const dropped = profile.droppedLogs ? `<p class="pf-empty">${esc(profile.droppedLogs)} more records were not kept (per-request bound).</p>` : '';
  return `<h2>Logs</h2>
<div class="pf-cards">
<div class="pf-card"><span>Errors</span><b>${countOf((l) => l.level >= 400)}</b></div>
<div class="pf-card"><span>Warnings</span><b>${countOf((l) => l.level >= 300 && l.level < 400)}</b></div>
<div class="pf-card"><span>Info &amp; notices</span><b>${countOf((l) => l.level >= 200 && l.level < 300)}</b></div>
<div class="pf-card"><span>Debug</span><b>${countOf((l) => l.level < 200)}</b></div>
</div>
<form class="pf-filters" method="get" action="${esc(ctx.urls.profile(profile.token))}">
<input type="hidden" name="panel" value="logs" />
<label>Level<select name="level">${levelOptions}</select></label>
<label>Channel<select name="channel">${channelOptions}</select></label>
<button class="pf-btn" type="submit">Filter</button>
<a href="${esc(ctx.urls.profile(profile.token, { panel: 'logs' }))}">Reset</a>
<span class="pf-mono" id="pf-log-count">${shown.length} of ${profile.logs.length} records</span>
</form>
${rows ? `<table class="pf-logs"><thead><tr><th>#</th><th>Time</th><th>Level</th><th>Channel</th><th>Message</th></tr></thead><tbody>${rows}</tbody></table>` : `<p class="pf-empty">${profile.logs.length ? 'No log records match these filters.' : 'No log records for this request.'}</p>`}
${dropped}`;
}

function eventsPanel(profile: Profile): string {
  const max = largest(profile.events.map((c) => c.durationMs), 0.001);
  // Hooks in the order they were first called (an error skips some and adds kernel.exception).
  const sections = groupByHook(profile.events).map(({ hook, calls }) => {
    const total = calls.reduce((s, c) => s + c.durationMs, 0);
    const rows = calls
      .map(
        (c, i) =>
          `<tr><td>${i + 1}</td><td class="pf-mono">${esc(c.listener)}</td><td>${esc(c.role)}</td><td class="pf-mono">${esc(formatMs(c.startMs))}</td><td class="pf-mono"><span class="pf-bar-inline" style="width:${Math.round((c.durationMs / max) * 120)}px;background:${HOOK_COLORS[hook] ?? '#6b7280'}"></span>${esc(formatMs(c.durationMs))}</td></tr>`,
      )
      .join('');
    return `<h3 id="hook-${esc(hook)}">${esc(hook)} <span class="pf-badge">${calls.length} listener${calls.length === 1 ? '' : 's'} · ${esc(formatMs(total))}</span></h3>
<table><thead><tr><th>#</th><th>Listener</th><th>Role</th><th>Started at</th><th>Duration</th></tr></thead><tbody>${rows}</tbody></table>`;
  }).join('');
  const notCalled = profile.notCalledListeners.length
    ? `<table><thead><tr><th>Hook</th><th>Listener</th><th>Role</th></tr></thead><tbody>${profile.notCalledListeners.map((l) => `<tr class="pf-row-muted"><td>${esc(l.hook)}</td><td class="pf-mono">${esc(l.listener)}</td><td>${esc(l.role)}</td></tr>`).join('')}</tbody></table>`
    : '<p class="pf-empty">Every registered listener was called.</p>';
  return `<h2>Events</h2>
<h3>Called listeners</h3>
${sections || '<p class="pf-empty">No listener calls were traced for this request.</p>'}
<h3>Not called listeners</h3>
${notCalled}`;
}

const OUTCOME_TEXT: Record<string, [string, string]> = {
  match: ['success', 'Route matches'],
  'path does not match': ['muted', 'Path does not match'],
  'method not allowed': ['warning', 'Path matches, method not allowed'],
  'requirement not met': ['warning', 'Path matches, a requirement does not'],
  'trailing slash differs': ['info', 'Matches with the trailing slash toggled'],
  'not examined': ['muted', 'Not examined (an earlier route decided)'],
};

function routingPanel(profile: Profile, ctx: PanelContext): string {
  const r = profile.routing;
  const matched = r.route
    ? `<div class="pf-cards"><div class="pf-card"><span>Matched route</span><b class="pf-mono">${esc(r.route)}</b></div><div class="pf-card"><span>Controller</span><b class="pf-mono">${esc(r.controller ?? 'n/a')}</b></div></div>`
    : `<div class="pf-cards"><div class="pf-card"><span>Matched route</span><b>none</b></div></div>`;
  let table = '<p class="pf-empty">The router cannot explain matches.</p>';
  if (ctx.explain) {
    let rows: RouteExplanationRow[] = [];
    try {
      rows = ctx.explain(profile.request.pathInfo, profile.method);
    } catch {
      rows = [];
    }
    table = rows.length
      ? `<table class="pf-routes"><thead><tr><th>#</th><th>Route name</th><th>Path</th><th>Methods</th><th>Log</th></tr></thead><tbody>${rows
          .map((row, i) => {
            const [tone, text] = OUTCOME_TEXT[row.outcome] ?? ['muted', row.outcome];
            const cls = row.outcome === 'match' ? 'pf-row-match' : row.outcome === 'not examined' ? 'pf-row-muted' : '';
            return `<tr${cls ? ` class="${cls}"` : ''} data-outcome="${esc(row.outcome)}"><td>${i + 1}</td><td class="pf-mono">${esc(row.name)}</td><td class="pf-mono">${esc(row.path)}</td><td>${esc(row.methods.length ? row.methods.join(', ') : 'ANY')}</td><td><span class="pf-badge pf-badge-${tone}">${esc(text)}</span></td></tr>`;
          })
          .join('')}</tbody></table>`
      : '<p class="pf-empty">No routes are configured.</p>';
  }
  return `<h2>Routing</h2>
${matched}
${kvTable(r.params, 'No route parameters.', 'Route Parameters')}
${r.redirect ? `<h3>Redirect</h3>${jsonBlock(r.redirect)}` : ''}
<h3>Route matching for <span class="pf-mono">${esc(profile.method)} ${esc(profile.request.pathInfo)}</span></h3>
<p class="pf-note">Routes are tried in table order; the first match wins. This is the route table of the process showing this page.</p>
${table}`;
}

function securityPanel(profile: Profile): string {
  const s = profile.security;
  const member = isAnonymousMember(s.memberId) ? 'anonymous' : typeof s.memberId === 'string' || typeof s.memberId === 'number' ? String(s.memberId) : JSON.stringify(s.memberId);
  return `<h2>Security</h2>
<div class="pf-cards">
<div class="pf-card"><span>Member</span><b>${esc(member)}</b></div>
<div class="pf-card"><span>Authenticated</span><b>${s.authenticated ? 'yes' : 'no'}</b></div>
<div class="pf-card"><span>Firewall</span><b class="pf-mono">${esc(s.firewall ?? 'none')}</b></div>
</div>
${kvTable({ member_id: s.memberId, irms_token: s.token, firewall: s.firewall, authenticated_by: s.authenticatedBy ?? null }, '', 'Security token')}
${rolesList(s.roles)}
${inheritedRolesList(s.inheritedRoles)}
${decisionLog(s.decisions, s.decisionsDropped ?? 0)}
<p class="pf-note">Tokens and credentials are masked before a profile is stored.</p>`;
}

/** The member's roles, as Symfony's security panel lists them; a profile stored before roles were recorded says so. */
function rolesList(roles: readonly string[] | undefined): string {
  if (roles === undefined) return '<h3>Roles</h3><p class="pf-empty">This profile was stored without roles.</p>';
  if (roles.length === 0) return '<h3>Roles</h3><p class="pf-empty">No roles: the request has no member.</p>';
  return `<h3>Roles</h3><ul class="pf-roles">${roles.map((r) => `<li class="pf-mono">${esc(r)}</li>`).join('')}</ul>`;
}

/** Symfony's Access decision log: each isGranted of the request, its attributes, subject and verdict. */
function decisionLog(decisions: Profile['security']['decisions'], dropped: number): string {
  if (decisions === undefined) return '';
  if (decisions.length === 0) return '<h3>Access decision log</h3><p class="pf-empty">No access decisions were made.</p>';
  const rows = decisions
    .map((d, i) => `<tr><td>${i + 1}</td><td><span class="pf-badge ${d.granted ? 'pf-badge-success' : 'pf-badge-error'}">${d.granted ? 'ACCESS GRANTED' : 'ACCESS DENIED'}</span></td><td class="pf-mono">${esc(d.attributes.join(', '))}</td><td class="pf-mono">${esc(d.subject)}</td></tr>`)
    .join('');
  const more = dropped > 0 ? `<tr><td colspan="4" class="pf-empty">… ${dropped} more decision${dropped === 1 ? '' : 's'}, not kept (a profile keeps the first 100)</td></tr>` : '';
  return `<h3>Access decision log</h3><table class="pf-decisions"><thead><tr><th>#</th><th>Result</th><th>Attributes</th><th>Subject</th></tr></thead><tbody>${rows}${more}</tbody></table>`;
}

/** The roles a role hierarchy gave the member, listed only when it gave some (Symfony's Inherited roles). */
function inheritedRolesList(roles: readonly string[] | undefined): string {
  if (roles === undefined || roles.length === 0) return '';
  return `<h3>Inherited roles</h3><ul class="pf-roles">${roles.map((r) => `<li class="pf-mono">${esc(r)}</li>`).join('')}</ul>`;
}

/**
 * As Symfony's request panel shows them: the attributes, then the flashes left unread (kept in the
 * stored profile among the attributes, under the flash bag's key).
 */
function sessionPanel(profile: Profile): string {
  const s = profile.session;
  if (!s) return '<h2>Session</h2><p class="pf-empty">No session was used during this request.</p>';
  const { [FLASHES_KEY]: flashes, ...attributes } = s.attributes;
  const unread = flashes !== null && typeof flashes === 'object' ? (flashes as Record<string, unknown>) : {};
  return `<h2>Session</h2>
<div class="pf-cards">
<div class="pf-card"><span>Session id (masked)</span><b class="pf-mono">${esc(s.id ?? 'n/a')}</b></div>
<div class="pf-card"><span>Started in this request</span><b>${s.started ? 'yes' : 'no'}</b></div>
<div class="pf-card"><span>Attributes</span><b>${Object.keys(attributes).length}</b></div>
</div>
${kvTable(attributes, 'No session attributes.', 'Session Attributes')}
${kvTable(unread, 'No flash messages.', 'Flashes')}`;
}

export function renderPanel(panel: PanelName, profile: Profile, ctx: PanelContext): string {
  switch (panel) {
    case 'request':
      return requestPanel(profile);
    case 'performance':
      return performancePanel(profile);
    case 'exception':
      return exceptionPanel(profile, ctx);
    case 'logs':
      return logsPanel(profile, ctx);
    case 'events':
      return eventsPanel(profile);
    case 'routing':
      return routingPanel(profile, ctx);
    case 'security':
      return securityPanel(profile);
    case 'session':
      return sessionPanel(profile);
  }
}

