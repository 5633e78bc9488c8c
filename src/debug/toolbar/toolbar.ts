/**
 * The web debug toolbar: the snippet injected into HTML pages (a placeholder, its stylesheet and a
 * loader script) and the fragment `/_wdt/<token>` answers. The fragment carries no inline style or
 * script, so a page's Content-Security-Policy only has to let the snippet's nonce through.
 */
import { isAnonymousMember, type Profile } from '../profiler/profile.ts';
import { esc, formatBytes, formatMs, logCounts, statusTone } from '../profiler/views/common.ts';

export interface ToolbarUrls {
  profile(token: string, params?: Record<string, string>): string;
  wdt(token: string): string;
  search(): string;
}

/**
 * Every box states its own display and flex direction: a site stylesheet such as
 * `div{display:flex;flex-direction:column}` (a common reset) otherwise reaches the toolbar's divs
 * and stacks its blocks in a column, 38 px high, so all but the first are cut off.
 */
const TOOLBAR_CSS = `
.irms-wdt{display:block;position:fixed;left:0;right:0;bottom:0;z-index:2147483000;font:13px/1 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#e5e7eb;text-align:left;letter-spacing:0}
.irms-wdt *{box-sizing:border-box}
.irms-wdt-bar{display:flex;flex-direction:row;flex-wrap:nowrap;align-items:stretch;background:#18171b;border-top:1px solid #2f2f35;box-shadow:0 -2px 8px rgba(0,0,0,.25);height:38px;overflow-x:auto;overflow-y:hidden}
.irms-wdt a.irms-wdt-block,.irms-wdt span.irms-wdt-block{display:flex;flex-direction:row;align-items:center;gap:6px;padding:0 12px;color:#e5e7eb;text-decoration:none;border-right:1px solid #2f2f35;white-space:nowrap}
.irms-wdt a.irms-wdt-block:hover{background:#2a2a31}
.irms-wdt-value{font-weight:700;font-size:13.5px;color:#fff}
.irms-wdt-label{color:#a1a1aa;font-size:12px}
.irms-wdt-success{background:#2f855a}
.irms-wdt-warning{background:#b7791f}
.irms-wdt-error{background:#c53030}
.irms-wdt a.irms-wdt-status:hover{filter:brightness(1.1);background-image:none}
.irms-wdt-status .irms-wdt-label,.irms-wdt-error .irms-wdt-label{color:#fff;opacity:.95}
.irms-wdt-badge{display:inline-block;min-width:18px;padding:3px 6px;border-radius:9px;background:#3f3f46;color:#fff;font-size:11px;font-weight:700;text-align:center}
.irms-wdt-badge-red{background:#dc2626}
.irms-wdt-badge-yellow{background:#ca8a04}
.irms-wdt-logo{display:inline-block;width:16px;height:16px;border-radius:4px;background:linear-gradient(135deg,#818cf8,#4f46e5)}
.irms-wdt-spacer{flex:1}
.irms-wdt button.irms-wdt-toggle{border:0;background:transparent;color:#a1a1aa;font-size:18px;padding:0 14px;cursor:pointer}
.irms-wdt button.irms-wdt-toggle:hover{color:#fff;background:#2a2a31}
.irms-wdt-mini{position:fixed;right:0;bottom:0;z-index:2147483000;display:none}
.irms-wdt-mini button{border:0;border-radius:6px 0 0 0;background:#18171b;color:#fff;padding:9px 12px;cursor:pointer;font:600 12px -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,sans-serif}
.irms-wdt-hidden .irms-wdt-bar{display:none}
.irms-wdt-hidden .irms-wdt-mini{display:block}
.irms-wdt-loading{display:flex;flex-direction:row;align-items:center;gap:8px;height:38px;padding:0 14px;background:#18171b;color:#a1a1aa}
.irms-wdt-loading a{color:#a5b4fc}
.irms-wdt-clearer{display:block;clear:both;height:38px;margin:0;padding:0;border:0}
.irms-wdt-hidden+.irms-wdt-clearer{display:none}
`;

/** The name of the Trusted Types policy the loader creates (added to a page's `trusted-types` list). */
const TT_POLICY = 'irms-wdt';

/**
 * The script that fetches `/_wdt/<token>` into the placeholder (retrying while the profile is being
 * stored). On a page that requires Trusted Types (`require-trusted-types-for 'script'`) a plain
 * string assigned to innerHTML throws: the fragment goes through a policy of its own. Should the
 * page still refuse it (`trusted-types 'none'`), the placeholder says so, keeping its profile link,
 * instead of an uncaught error and "Loading…" for ever.
 */
const LOADER_SCRIPT = `(function(){var root=document.getElementById(\u0000ID\u0000);if(!root)return;var KEY='irms/wdt/hidden';
var policy=null;try{if(window.trustedTypes&&trustedTypes.createPolicy)policy=trustedTypes.createPolicy('${TT_POLICY}',{createHTML:function(s){return s;}});}catch(e){}
function hidden(v){try{if(v===undefined)return localStorage.getItem(KEY)==='1';localStorage.setItem(KEY,v?'1':'0');}catch(e){}return false;}
function apply(){root.classList.toggle('irms-wdt-hidden',hidden());}
root.addEventListener('click',function(e){var t=e.target;while(t&&t!==root){if(t.getAttribute&&t.getAttribute('data-irms-wdt-toggle')!==null){e.preventDefault();hidden(!hidden());apply();return;}t=t.parentNode;}});
function fail(status){var box=root.querySelector('.irms-wdt-loading');if(box)box.firstChild.nodeValue='An error occurred while loading the debug toolbar ('+status+'). ';}
function show(html){try{root.innerHTML=policy?policy.createHTML(html):html;}catch(e){fail('blocked by the page');return;}root.setAttribute('data-irms-wdt-loaded','1');apply();}
function load(attempt){var x=new XMLHttpRequest();x.open('GET',\u0000URL\u0000,true);x.setRequestHeader('X-Requested-With','XMLHttpRequest');
x.onload=function(){if(x.status===200&&x.responseText){show(x.responseText);}else if(x.status===404&&attempt<6){setTimeout(function(){load(attempt+1);},150*(attempt+1));}else{fail(x.status);}};
x.onerror=function(){fail('network error');};x.send();}
apply();load(0);})();`.replace(/\n/g, '');
/** The loader around its two values (newlines stripped once: the JSON-quoted values never hold one). */
const [LOADER_0, LOADER_1, LOADER_2] = LOADER_SCRIPT.split(/\u0000(?:ID|URL)\u0000/) as [string, string, string];

/**
 * The loader with its values, inside CDATA markers hidden in comments (as Symfony's toolbar_js):
 * an XHTML page (`application/xhtml+xml`) is parsed as XML, where the script's `&&` and `<` are
 * markup errors that turned the whole page into the browser's parse-error page. In HTML the markers
 * are mere comments. `<` and `>` in the values are escaped (\u003c, \u003e) so that no value can
 * end the script or the CDATA section.
 */
function loaderScript(token: string, wdtUrl: string): string {
  return `/*<![CDATA[*/${LOADER_0}${jsString(`irms-wdt-${token}`)}${LOADER_1}${jsString(wdtUrl)}${LOADER_2}/*]]>*/`;
}

function jsString(value: string): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

const TOOLBAR_CSS_INLINE = TOOLBAR_CSS.replace(/\n/g, '');

/**
 * What is injected before `</body>`: a placeholder that already links to the profile (so the profile
 * is one click away even when scripts are blocked), the toolbar stylesheet and the loader.
 *
 * After the placeholder, a clearer (Symfony's `sf-toolbar-clearer`): an empty block in the page's
 * flow as tall as the bar, so the page scrolls past the fixed bar instead of keeping its last 38 px
 * under it. It follows the placeholder so that the stylesheet collapses it, without script, while
 * the toolbar is hidden (`.irms-wdt-hidden + .irms-wdt-clearer`).
 */
export function toolbarSnippet(token: string, urls: ToolbarUrls, nonce: string | null): string {
  const n = nonce ? ` nonce="${esc(nonce)}"` : '';
  const profile = urls.profile(token);
  return (
    `<div id="irms-wdt-${esc(token)}" class="irms-wdt" role="region" aria-label="irms-web debug toolbar" data-token="${esc(token)}">` +
    // `&#8230;` (…) as a reference keeps the snippet ASCII: a Latin-1 page stays a one-byte string.
    `<div class="irms-wdt-loading">Loading the debug toolbar&#8230; <a href="${esc(profile)}">Open profile ${esc(token)}</a></div></div>` +
    `<div class="irms-wdt-clearer" aria-hidden="true"></div>` +
    `<style${n}>${TOOLBAR_CSS_INLINE}</style>` +
    `<script${n}>${loaderScript(token, urls.wdt(token))}</script>`
  );
}

/**
 * At most `max` UTF-16 units, never half of a surrogate pair: a lone surrogate is escaped as a
 * character reference the browser shows as U+FFFD (a member id ending in an emoji past the cut).
 */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The toolbar fragment of a stored profile (`/_wdt/<token>`). */
export function renderToolbar(profile: Profile, urls: ToolbarUrls): string {
  const token = profile.token;
  const link = (panel: string) => esc(urls.profile(token, { panel }));
  const tone = statusTone(profile.status);
  const { errors, warnings } = logCounts(profile.logs);
  const member = profile.security.memberId;
  const memberText = isAnonymousMember(member) ? 'anon.' : typeof member === 'object' ? JSON.stringify(member) : String(member);
  const blocks: string[] = [
    `<a class="irms-wdt-block irms-wdt-logo-block" href="${esc(urls.profile(token))}" title="Open the profile of this request"><span class="irms-wdt-logo"></span></a>`,
    `<a class="irms-wdt-block irms-wdt-status irms-wdt-${tone}" data-irms-wdt="status" href="${link('request')}" title="${esc(`${profile.status} ${profile.statusText}`)} &#x2014; route ${esc(profile.route ?? 'n/a')} &#x2014; controller ${esc(profile.controller ?? 'n/a')}"><span class="irms-wdt-value">${esc(profile.status)}</span><span class="irms-wdt-label">@ ${esc(profile.route ?? 'n/a')}</span></a>`,
    `<a class="irms-wdt-block" data-irms-wdt="time" href="${link('performance')}" title="Total time until the response was ready"><span class="irms-wdt-value">${esc(formatMs(profile.durationMs).split(' ')[0])}</span><span class="irms-wdt-label">${esc(formatMs(profile.durationMs).split(' ')[1] ?? 'ms')}</span></a>`,
    `<a class="irms-wdt-block" data-irms-wdt="memory" href="${link('performance')}" title="Resident memory of the process"><span class="irms-wdt-value">${esc(formatBytes(profile.memory).split(' ')[0])}</span><span class="irms-wdt-label">${esc(formatBytes(profile.memory).split(' ')[1] ?? '')}</span></a>`,
    `<a class="irms-wdt-block" data-irms-wdt="logs" href="${link('logs')}" title="${esc(`${profile.logs.length} log records, ${errors} errors, ${warnings} warnings`)}"><span class="irms-wdt-label">Logs</span><span class="irms-wdt-badge">${profile.logs.length}</span>${errors ? `<span class="irms-wdt-badge irms-wdt-badge-red" data-irms-wdt="errors">${errors}</span>` : ''}${warnings ? `<span class="irms-wdt-badge irms-wdt-badge-yellow">${warnings}</span>` : ''}</a>`,
  ];
  if (profile.exception) {
    blocks.push(`<a class="irms-wdt-block irms-wdt-error" data-irms-wdt="exception" href="${link('exception')}" title="${esc(profile.exception.message)}"><span class="irms-wdt-label">${esc(profile.exception.class)}</span></a>`);
  }
  blocks.push(
    `<a class="irms-wdt-block" data-irms-wdt="member" href="${link('security')}" title="Member of this request"><span class="irms-wdt-label">Member</span><span class="irms-wdt-value">${esc(clip(memberText, 40))}</span></a>`,
    `<span class="irms-wdt-spacer"></span>`,
    `<a class="irms-wdt-block" data-irms-wdt="token" href="${esc(urls.profile(token))}" title="Open the full profile"><span class="irms-wdt-label">Profile</span><span class="irms-wdt-value">${esc(token)}</span></a>`,
    `<a class="irms-wdt-block" href="${esc(urls.search())}" title="Search earlier requests"><span class="irms-wdt-label">Search</span></a>`,
    `<button type="button" class="irms-wdt-toggle" data-irms-wdt-toggle="" title="Hide the toolbar" aria-label="Hide the toolbar">×</button>`,
  );
  return `<div class="irms-wdt-bar" role="toolbar" aria-label="Request ${esc(token)}">${blocks.join('')}</div><div class="irms-wdt-mini"><button type="button" data-irms-wdt-toggle="" title="Show the debug toolbar">irms ${esc(profile.status)}</button></div>`;
}

const BODY_CLOSE = '</body>';

/** Index of the last `</body>` (ASCII case-insensitive) in a string, or -1. */
export function lastBodyClose(text: string): number {
  for (let i = text.length - BODY_CLOSE.length; i >= 0; i--) {
    if (text.charCodeAt(i) !== 0x3c || text.charCodeAt(i + 1) !== 0x2f) continue;
    let ok = true;
    for (let j = 2; j < BODY_CLOSE.length; j++) {
      if ((text.charCodeAt(i + j) | 0x20) !== BODY_CLOSE.charCodeAt(j)) {
        ok = false;
        break;
      }
    }
    if (ok) return i;
  }
  return -1;
}

/** Same on bytes (any ASCII-compatible charset), so a byte body is never re-encoded. */
export function lastBodyCloseBytes(bytes: Uint8Array): number {
  for (let i = bytes.length - BODY_CLOSE.length; i >= 0; i--) {
    if (bytes[i] !== 0x3c || bytes[i + 1] !== 0x2f) continue;
    let ok = true;
    for (let j = 2; j < BODY_CLOSE.length; j++) {
      if ((bytes[i + j]! | 0x20) !== BODY_CLOSE.charCodeAt(j)) {
        ok = false;
        break;
      }
    }
    if (ok) return i;
  }
  return -1;
}

/**
 * Adds a nonce to a Content-Security-Policy so the snippet runs, as Symfony's CSP handler does: only
 * to script/style directives that do not already allow inline code (adding a nonce to one that has
 * 'unsafe-inline' would switch inline code off for the page).
 *
 * `script-src-elem` / `style-src-elem` govern `<script>` / `<style>` elements ahead of `script-src` /
 * `style-src`, so a page that sets them would block the snippet whatever the others allow: they get
 * the nonce too when present. When absent nothing is added for them (as Symfony's
 * getDirectiveFallback): the browser falls back to `script-src` / `style-src`, which have the nonce.
 */
export function addCspNonce(csp: string, nonce: string): string {
  // A header sent twice reads as one value joined by commas, and a comma separates policies (CSP3
  // "parse a serialized CSP list"): the browser enforces each policy on its own, so each needs the
  // nonce. Read as one policy, the second's directives were taken for sources of the first's last
  // directive, and the first policy blocked the snippet. (Symfony's ContentSecurityPolicyHandler
  // reads only the first header and writes it back alone, dropping the others: not reproduced.)
  return csp
    .split(',')
    .map((policy) => addNonceToPolicy(policy, nonce))
    .filter(Boolean)
    .join(', ');
}

/** addCspNonce for one policy of the list. */
function addNonceToPolicy(csp: string, nonce: string): string {
  const directives = csp.split(';').map((d) => d.trim()).filter(Boolean);
  const find = (name: string) => directives.findIndex((d) => d.toLowerCase().split(/\s+/)[0] === name);
  const allowsInline = (d: string) => /'unsafe-inline'/i.test(d) && !/'nonce-|'sha(256|384|512)-/i.test(d);
  const defaultIndex = find('default-src');
  for (const name of ['script-src', 'script-src-elem', 'style-src', 'style-src-elem']) {
    const i = find(name);
    if (i >= 0) {
      if (!allowsInline(directives[i]!)) directives[i] = `${directives[i]} 'nonce-${nonce}'`;
    } else if (!name.endsWith('-elem') && defaultIndex >= 0 && !allowsInline(directives[defaultIndex]!)) {
      const sources = directives[defaultIndex]!.split(/\s+/).slice(1).filter((s) => s !== "'none'");
      directives.push([name, ...sources, `'nonce-${nonce}'`].join(' '));
    }
  }
  allowTrustedTypesPolicy(directives, find('trusted-types'));
  return directives.join('; ');
}

/**
 * A `trusted-types` directive lists the policies a page may create; the loader needs its own to put
 * the fragment into the page under `require-trusted-types-for 'script'`. Added like the nonce, except
 * where the list allows every name (`*`) or the page allows none (`'none'`: the loader then reports
 * the toolbar as blocked).
 */
function allowTrustedTypesPolicy(directives: string[], index: number): void {
  if (index < 0) return;
  const names = directives[index]!.split(/\s+/).slice(1);
  // An empty list allows no policy, as 'none' does.
  if (names.length === 0 || names.some((n) => n === '*' || n === TT_POLICY || n.toLowerCase() === "'none'")) return;
  directives[index] = `${directives[index]} ${TT_POLICY}`;
}

export function randomNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/=+$/, '');
}
