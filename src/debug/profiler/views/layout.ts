/** The profiler's page shell: header, summary bar of the profile, panel menu. */
import type { Profile } from '../profile.ts';
import { dateText, esc, formatMs, logCounts, safeHref, statusTone } from './common.ts';
import { PROFILER_CSS } from './styles.ts';

export interface ProfilerUrls {
  profile(token: string, params?: Record<string, string>): string;
  router(token: string): string;
  exception(token: string): string;
  /** `/_profiler/search` with optional criteria. */
  search(params?: Record<string, string | number | undefined>): string;
  results(token: string, params?: Record<string, string | number | undefined>): string;
  home(): string;
  wdt(token: string): string;
}

export const PANELS = ['request', 'performance', 'exception', 'logs', 'events', 'routing', 'security', 'session'] as const;
export type PanelName = (typeof PANELS)[number];

export const PANEL_TITLES: Record<PanelName, string> = {
  request: 'Request / Response',
  performance: 'Performance',
  exception: 'Exception',
  logs: 'Logs',
  events: 'Events',
  routing: 'Routing',
  security: 'Security',
  session: 'Session',
};

export function isPanel(value: string): value is PanelName {
  return (PANELS as readonly string[]).includes(value);
}

export interface PageOptions {
  title: string;
  urls: ProfilerUrls;
  nonce: string;
  profile?: Profile | null;
  panel?: PanelName | null;
  content: string;
  /** Extra script (nonce-protected), without tags. */
  script?: string;
}

function summary(profile: Profile, urls: ProfilerUrls): string {
  const tone = statusTone(profile.status);
  const href = profile.method === 'GET' || profile.method === 'HEAD' ? safeHref(profile.url) : null;
  const url = href ? `<a href="${esc(href)}">${esc(profile.url)}</a>` : esc(profile.url);
  const target = (profile.routing.redirect as { location?: unknown } | null)?.location;
  const redirect = typeof target === 'string' && target ? `<p class="pf-note">Redirects to <span class="pf-mono">${esc(target)}</span></p>` : '';
  const item = (label: string, value: string) => `<div><dt>${esc(label)}</dt><dd>${value}</dd></div>`;
  return `<div class="pf-summary pf-summary-${tone}">
<h2><span class="pf-method">${esc(profile.method)}</span>${url}</h2>
<dl class="pf-meta">
${item('HTTP Status', `${esc(profile.status)} ${esc(profile.statusText)}`)}
${item('Route', esc(profile.route ?? 'n/a'))}
${item('IP', `<a href="${esc(urls.results('empty', { ip: profile.ip, limit: 10 }))}" title="Search profiles of this IP">${esc(profile.ip)}</a>`)}
${item('Duration', esc(formatMs(profile.durationMs)))}
${item('Profiled on', esc(dateText(profile.time)))}
${item('Token', `<span class="pf-mono">${esc(profile.token)}</span>`)}
</dl>${redirect}
</div>`;
}

function count(profile: Profile, panel: PanelName): string {
  if (panel === 'exception' && profile.exception) return '<span class="pf-count pf-count-error">1</span>';
  if (panel === 'logs') {
    const { errors, warnings } = logCounts(profile.logs);
    if (errors) return `<span class="pf-count pf-count-error" title="errors">${errors}</span>`;
    if (warnings) return `<span class="pf-count pf-count-warning" title="warnings">${warnings}</span>`;
    return profile.logs.length ? `<span class="pf-count">${profile.logs.length}</span>` : '';
  }
  if (panel === 'events') return `<span class="pf-count">${profile.events.length}</span>`;
  return '';
}

function disabled(profile: Profile, panel: PanelName): boolean {
  return (panel === 'exception' && !profile.exception) || (panel === 'logs' && profile.logs.length === 0) || (panel === 'session' && !profile.session) || (panel === 'security' && !profile.security.authenticated && !profile.security.firewall);
}

function menu(profile: Profile, active: PanelName | null, urls: ProfilerUrls): string {
  const items = PANELS.map((panel) => {
    const cls = [panel === active ? 'pf-active' : '', disabled(profile, panel) ? 'pf-disabled' : ''].filter(Boolean).join(' ');
    const href = panel === 'routing' ? urls.router(profile.token) : urls.profile(profile.token, { panel });
    return `<li${cls ? ` class="${cls}"` : ''} data-panel="${panel}"><a href="${esc(href)}"><span>${esc(PANEL_TITLES[panel])}</span>${count(profile, panel)}</a></li>`;
  });
  return `<ul class="pf-menu">${items.join('')}</ul>`;
}

/**
 * The page. Its head names an empty data-URI icon (as the welcome and error pages do; the page CSP
 * allows `img-src data:`): without one the browser asks for `/favicon.ico`, that 404 is profiled,
 * and it becomes the "Latest" profile the moment the developer opens the profiler.
 */
export function renderPage(options: PageOptions): string {
  const { urls, profile, panel, nonce } = options;
  const nav = `<nav class="pf-nav" aria-label="Profiler">
<div class="pf-nav-buttons"><a href="${esc(urls.results('empty', { limit: 10 }))}">Last 10</a><a href="${esc(urls.profile('latest'))}">Latest</a><a href="${esc(urls.search())}">Search</a></div>
${profile ? menu(profile, panel ?? null, urls) : ''}
</nav>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8" />
<meta name="robots" content="noindex,nofollow" />
<meta name="viewport" content="width=device-width,initial-scale=1" />
<title>${esc(options.title)} · irms-web Profiler</title>
<link rel="icon" href="data:," />
<style nonce="${esc(nonce)}">${PROFILER_CSS}</style>
</head>
<body>
<header class="pf-header"><h1><a href="${esc(urls.results('empty', { limit: 10 }))}"><span class="pf-logo"></span>irms-web <b>Profiler</b></a></h1>
<form class="pf-quick" action="${esc(urls.search())}" method="get" role="search"><input name="token" placeholder="Token (6 hex)" aria-label="Token" autocomplete="off" /><button type="submit">Open</button></form></header>
${profile ? summary(profile, urls) : ''}
<div class="pf-body">
${nav}
<main class="pf-main" id="pf-panel"${panel ? ` data-panel="${panel}"` : ''}>
${options.content}
</main>
</div>
${options.script ? `<script nonce="${esc(nonce)}">${options.script}</script>` : ''}
</body>
</html>
`;
}
