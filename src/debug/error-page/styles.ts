/**
 * The error page's inline stylesheet. Light theme by default, dark through `prefers-color-scheme`
 * unless the reader picked a theme (`data-theme` on <html>, set by the toggle). No external fonts,
 * images or URLs: the page works offline and under any network policy.
 */

const LIGHT = `
  --bg: #f4f5f8; --surface: #ffffff; --surface-2: #f0f2f6; --text: #1c2230; --muted: #5f6878; --border: #dde1e9;
  --accent: #4b47d6; --accent-soft: #ecebff; --link: #3d39c4;
  --code-bg: #f8f9fb; --code-text: #1c2230; --code-current: #fff3c4; --code-current-edge: #e0a100; --code-ln: #9aa2b1;
  --error: #c22f3e; --error-soft: #fde8ea; --warning: #a86400; --warning-soft: #fff2dc; --info: #2566b0; --info-soft: #e5f0fc;
  --debug: #6b7383; --debug-soft: #eef0f4;
  --hl-k: #8a2fc7; --hl-s: #1f7a3d; --hl-c: #8a93a3; --hl-n: #b3530d; --hl-f: #2459b8; --hl-t: #0f7a83;
  --shadow: 0 1px 2px rgba(16, 24, 40, .06), 0 1px 3px rgba(16, 24, 40, .08);
`;

const DARK = `
  --bg: #111319; --surface: #191c24; --surface-2: #21252f; --text: #e4e7ee; --muted: #98a1b2; --border: #2d323e;
  --accent: #8f8bff; --accent-soft: #28274a; --link: #a9a6ff;
  --code-bg: #14161d; --code-text: #dfe3ea; --code-current: #3a3117; --code-current-edge: #e0a100; --code-ln: #5f6777;
  --error: #ff6b78; --error-soft: #3b1d23; --warning: #f0b45a; --warning-soft: #3a2c14; --info: #6fb1ff; --info-soft: #172b45;
  --debug: #98a1b2; --debug-soft: #262a34;
  --hl-k: #d59bff; --hl-s: #8fd694; --hl-c: #6d7585; --hl-n: #ffab70; --hl-f: #7cb7ff; --hl-t: #5fd3d9;
  --shadow: 0 1px 2px rgba(0, 0, 0, .4);
`;

export const STYLES = `
:root { ${LIGHT} color-scheme: light; }
@media (prefers-color-scheme: dark) { :root:not([data-theme="light"]) { ${DARK} color-scheme: dark; } }
:root[data-theme="dark"] { ${DARK} color-scheme: dark; }

* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, pre, kbd, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
a { color: var(--link); }
.container { max-width: 1240px; margin: 0 auto; padding: 0 24px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.topbar { background: var(--surface); border-bottom: 1px solid var(--border); }
.topbar .container { display: flex; align-items: center; justify-content: space-between; height: 48px; }
.brand { display: flex; align-items: center; gap: 10px; font-weight: 600; letter-spacing: .2px; }
.brand svg { width: 22px; height: 22px; }
.brand .brand-sub { color: var(--muted); font-weight: 500; }
.topbar-actions { display: flex; align-items: center; gap: 12px; color: var(--muted); font-size: 13px; }
.theme-toggle { display: none; border: 1px solid var(--border); background: var(--surface-2); color: var(--text); border-radius: 8px; padding: 4px 10px; font: inherit; font-size: 13px; cursor: pointer; }
.js .theme-toggle { display: inline-flex; align-items: center; gap: 6px; }
.theme-toggle:hover { border-color: var(--accent); }

.summary { color: #fff; background: linear-gradient(135deg, #3b3f8f 0%, #5b3c9b 100%); }
.summary.status-5xx { background: linear-gradient(135deg, #8e1f2f 0%, #b4372c 100%); }
.summary .container { padding-top: 28px; padding-bottom: 30px; }
.exception-hierarchy { margin: 0 0 10px; font-size: 14px; font-weight: 500; opacity: .92; display: flex; flex-wrap: wrap; align-items: center; gap: 6px; }
.exception-hierarchy a { color: #fff; text-decoration: none; border-bottom: 1px dotted rgba(255,255,255,.6); }
.exception-hierarchy a:hover { border-bottom-style: solid; }
.exception-hierarchy .chevron { opacity: .7; }
.exception-http { margin: 0 0 6px; font-size: 15px; font-weight: 600; letter-spacing: .4px; opacity: .95; }
.exception-http small { font-size: 15px; font-weight: 400; opacity: .85; }
.exception-message { margin: 0; font-size: 26px; line-height: 1.3; font-weight: 600; overflow-wrap: anywhere; }
.exception-message.long { font-size: 19px; }
.exception-without-message .exception-message { font-style: italic; opacity: .8; }
.request-line { margin: 14px 0 0; font-size: 13px; display: flex; flex-wrap: wrap; gap: 8px 16px; opacity: .95; }
.request-line code { background: rgba(255,255,255,.14); color: #fff; padding: 2px 6px; border-radius: 5px; overflow-wrap: anywhere; }
.request-line .label { opacity: .75; margin-right: 4px; }

.tabs { display: flex; gap: 4px; margin: 24px 0 0; border-bottom: 1px solid var(--border); overflow-x: auto; }
.tab { display: inline-flex; align-items: center; gap: 8px; padding: 10px 16px; color: var(--muted); text-decoration: none; font-weight: 600; font-size: 14px; border: 1px solid transparent; border-bottom: none; border-radius: 8px 8px 0 0; margin-bottom: -1px; white-space: nowrap; }
.tab:hover { color: var(--text); }
.tab[aria-selected="true"] { color: var(--text); background: var(--surface); border-color: var(--border); }
.tab.disabled { opacity: .6; }
.badge { display: inline-block; min-width: 20px; padding: 1px 7px; border-radius: 999px; background: var(--surface-2); color: var(--muted); font-size: 12px; font-weight: 700; text-align: center; border: 1px solid var(--border); }
.badge.status-error { background: var(--error); color: #fff; border-color: var(--error); }

.tab-panel { background: var(--surface); border: 1px solid var(--border); border-top: none; border-radius: 0 0 10px 10px; padding: 20px; margin-bottom: 28px; box-shadow: var(--shadow); }
.no-js .tab-panel { border-top: 1px solid var(--border); border-radius: 10px; margin-top: 16px; }
.js .tab-panel:not(.active) { display: none; }
.panel-title { margin: 0 0 16px; font-size: 18px; display: flex; align-items: center; gap: 8px; }
.js .panel-title { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.empty { color: var(--muted); font-style: italic; margin: 8px 0; }

/* Exceptions */
.trace-box { border: 1px solid var(--border); border-radius: 10px; margin: 0 0 16px; background: var(--surface); overflow: hidden; }
.trace-box > summary { list-style: none; cursor: pointer; padding: 14px 16px; background: var(--surface-2); display: block; }
.trace-box > summary::-webkit-details-marker { display: none; }
.trace-box > summary::before { content: "\\25B8"; display: inline-block; width: 16px; color: var(--muted); transition: transform .15s; }
.trace-box[open] > summary::before { transform: rotate(90deg); }
.trace-box[open] > summary { border-bottom: 1px solid var(--border); }
.trace-class { display: inline; font-size: 16px; margin: 0; font-weight: 700; }
.trace-index { color: var(--muted); font-size: 12px; font-weight: 600; margin-left: 8px; }
.trace-message { display: block; margin: 6px 0 0 16px; color: var(--text); overflow-wrap: anywhere; white-space: pre-wrap; }
.trace-where { display: block; margin: 4px 0 0 16px; color: var(--muted); font-size: 13px; }
.trace-body { padding: 12px 16px 16px; }
.callout { border-radius: 8px; padding: 10px 12px; margin: 0 0 12px; font-size: 14px; }
.callout.hint { background: var(--info-soft); color: var(--text); border-left: 3px solid var(--info); }
.kv-title { font-size: 12px; text-transform: uppercase; letter-spacing: .6px; color: var(--muted); margin: 12px 0 6px; font-weight: 700; }
pre.json { margin: 0 0 12px; padding: 10px 12px; background: var(--code-bg); color: var(--code-text); border: 1px solid var(--border); border-radius: 8px; overflow: auto; max-height: 360px; white-space: pre-wrap; overflow-wrap: anywhere; }

.frames { list-style: none; margin: 0; padding: 0; }
.frame { border: 1px solid var(--border); border-radius: 8px; margin: 0 0 8px; background: var(--surface); }
.frame > details > summary, .frame > .frame-line { list-style: none; padding: 8px 12px; display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 12px; }
.frame > details > summary { cursor: pointer; }
.frame > details > summary::-webkit-details-marker { display: none; }
.frame > details[open] > summary { border-bottom: 1px solid var(--border); }
.frame-fn { font-weight: 600; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; overflow-wrap: anywhere; }
.frame-fn.anonymous { color: var(--muted); font-weight: 500; font-style: italic; }
.frame-file { color: var(--muted); font-size: 13px; overflow-wrap: anywhere; }
.frame-file .frame-lineno { color: var(--text); font-weight: 600; }
.frame-gen { color: var(--muted); font-size: 12px; opacity: .8; }
.frame.frame-app { border-left: 3px solid var(--accent); }
.vendor-group { margin: 0 0 8px; }
.vendor-group > summary { cursor: pointer; color: var(--muted); font-size: 13px; padding: 6px 12px; border: 1px dashed var(--border); border-radius: 8px; list-style: none; }
.vendor-group > summary::-webkit-details-marker { display: none; }
.vendor-group[open] > summary { margin-bottom: 8px; }
.vendor-group .frame { opacity: .85; }

.excerpt { margin: 0; padding: 8px 0; background: var(--code-bg); color: var(--code-text); overflow-x: auto; border-radius: 0 0 8px 8px; line-height: 1.6; }
.excerpt .line { display: block; padding: 0 12px 0 0; white-space: pre; min-width: max-content; }
.excerpt .ln { display: inline-block; width: 5ch; padding-right: 1.5ch; text-align: right; color: var(--code-ln); user-select: none; }
.excerpt .line.current { background: var(--code-current); box-shadow: inset 3px 0 0 var(--code-current-edge); }
.excerpt .line.current .ln { color: var(--text); font-weight: 700; }
.hl-k { color: var(--hl-k); } .hl-s { color: var(--hl-s); } .hl-c { color: var(--hl-c); font-style: italic; }
.hl-n { color: var(--hl-n); } .hl-f { color: var(--hl-f); } .hl-t { color: var(--hl-t); }

/* Logs */
.log-filters { display: none; gap: 6px; align-items: center; flex-wrap: wrap; margin: 0 0 12px; font-size: 13px; color: var(--muted); }
.js .log-filters { display: flex; }
.filter { border: 1px solid var(--border); background: var(--surface); color: var(--text); border-radius: 999px; padding: 3px 12px; font: inherit; font-size: 13px; cursor: pointer; }
.filter[aria-pressed="true"] { background: var(--accent); border-color: var(--accent); color: #fff; }
.log-count { margin-left: auto; }
table.logs { width: 100%; border-collapse: collapse; font-size: 14px; table-layout: fixed; }
table.logs th { text-align: left; font-size: 12px; text-transform: uppercase; letter-spacing: .6px; color: var(--muted); padding: 8px 10px; border-bottom: 1px solid var(--border); }
table.logs td { padding: 8px 10px; border-bottom: 1px solid var(--border); vertical-align: top; overflow-wrap: anywhere; }
table.logs col.c-level { width: 150px; } table.logs col.c-channel { width: 120px; }
table.logs tr.status-error td:first-child { box-shadow: inset 3px 0 0 var(--error); }
table.logs tr.status-warning td:first-child { box-shadow: inset 3px 0 0 var(--warning); }
table.logs tr.hidden { display: none; }
.level { display: inline-block; font-size: 11px; font-weight: 800; letter-spacing: .5px; padding: 1px 7px; border-radius: 4px; }
.level-debug { background: var(--debug-soft); color: var(--debug); }
.level-info, .level-notice { background: var(--info-soft); color: var(--info); }
.level-warning { background: var(--warning-soft); color: var(--warning); }
.level-error { background: var(--error-soft); color: var(--error); }
.log-time { display: block; color: var(--muted); font-size: 12px; margin-top: 2px; }
.log-message { white-space: pre-wrap; }
.log-context { margin: 6px 0 0; padding: 8px 10px; background: var(--code-bg); border: 1px solid var(--border); border-radius: 6px; max-height: 260px; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
.dropped { color: var(--warning); margin: 10px 0 0; font-size: 13px; }

/* Stack traces */
.trace-text { margin: 0 0 18px; }
.trace-text-head { display: flex; align-items: center; justify-content: space-between; gap: 12px; margin: 0 0 6px; }
.trace-text-head h3 { margin: 0; font-size: 15px; }
.copy { display: none; border: 1px solid var(--border); background: var(--surface-2); color: var(--text); border-radius: 6px; padding: 3px 10px; font: inherit; font-size: 12px; cursor: pointer; }
.js .copy { display: inline-block; }
pre.stacktrace { margin: 0; padding: 12px 14px; background: var(--code-bg); color: var(--code-text); border: 1px solid var(--border); border-radius: 8px; overflow: auto; white-space: pre; line-height: 1.55; }

footer { color: var(--muted); font-size: 12px; padding: 0 0 72px; }

@media (max-width: 640px) {
  .container { padding: 0 14px; }
  .exception-message { font-size: 20px; }
  table.logs col.c-level { width: 96px; } table.logs col.c-channel { width: 80px; }
}
@media print {
  .tabs, .theme-toggle, .copy, .log-filters { display: none !important; }
  .js .tab-panel:not(.active) { display: block; }
}
`;
