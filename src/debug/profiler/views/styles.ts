/** The profiler pages' stylesheet (inline: the pages load nothing from elsewhere). */
export const PROFILER_CSS = `
:root{--bg:#f3f4f6;--panel:#fff;--text:#1f2328;--muted:#6b7280;--line:#e5e7eb;--head:#18171b;--accent:#4f46e5;
--ok:#2f855a;--ok-bg:#e6f4ea;--warn:#b7791f;--warn-bg:#fdf3e1;--err:#c53030;--err-bg:#fdecec;--info:#2b6cb0;--info-bg:#e8f1fb;
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
*{box-sizing:border-box}
html,body{margin:0;padding:0}
body{background:var(--bg);color:var(--text);font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
code,pre,.pf-mono{font-family:var(--mono);font-size:12.5px}
.pf-header{display:flex;align-items:center;justify-content:space-between;gap:16px;background:var(--head);color:#fff;padding:10px 24px}
.pf-header h1{margin:0;font-size:17px;font-weight:500;letter-spacing:.2px}
.pf-header h1 a{color:#fff}
.pf-header h1 b{font-weight:700}
.pf-logo{display:inline-block;width:22px;height:22px;border-radius:6px;background:linear-gradient(135deg,#818cf8,#4f46e5);vertical-align:-5px;margin-right:8px}
.pf-quick{display:flex;gap:6px}
.pf-quick input{width:150px;border:1px solid #3f3f46;background:#27272a;color:#fff;border-radius:6px;padding:5px 8px;font:inherit}
.pf-quick button,.pf-btn{border:0;background:var(--accent);color:#fff;border-radius:6px;padding:5px 12px;font:inherit;cursor:pointer}
.pf-summary{padding:16px 24px 14px;color:#fff;background:#4b5563}
.pf-summary-success{background:linear-gradient(90deg,#276749,#2f855a)}
.pf-summary-warning{background:linear-gradient(90deg,#975a16,#b7791f)}
.pf-summary-error{background:linear-gradient(90deg,#9b2c2c,#c53030)}
.pf-summary h2{margin:0 0 10px;font-size:20px;font-weight:600;word-break:break-all}
.pf-summary h2 a{color:#fff}
.pf-method{display:inline-block;font-size:12px;font-weight:700;background:rgba(0,0,0,.25);border-radius:4px;padding:2px 7px;margin-right:8px;vertical-align:3px}
.pf-meta{display:flex;flex-wrap:wrap;gap:8px 28px;margin:0}
.pf-meta div{display:flex;flex-direction:column}
.pf-meta dt{font-size:11px;text-transform:uppercase;letter-spacing:.6px;opacity:.8}
.pf-meta dd{margin:0;font-weight:600}
.pf-meta a{color:#fff;text-decoration:underline}
.pf-note{margin:8px 0 0;font-size:13px;opacity:.95}
.pf-body{display:flex;align-items:flex-start;min-height:calc(100vh - 150px)}
.pf-nav{flex:0 0 230px;padding:16px 0;position:sticky;top:0}
.pf-nav-buttons{display:flex;gap:6px;padding:0 16px 14px}
.pf-nav-buttons a{flex:1;text-align:center;background:#fff;border:1px solid var(--line);border-radius:6px;padding:5px 0;font-size:12.5px;color:var(--text)}
.pf-nav-buttons a:hover{border-color:var(--accent);text-decoration:none}
.pf-menu{list-style:none;margin:0;padding:0}
.pf-menu a{display:flex;align-items:center;justify-content:space-between;padding:9px 18px;color:var(--text);border-left:3px solid transparent}
.pf-menu a:hover{background:#e9eaf0;text-decoration:none}
.pf-menu li.pf-active a{background:#fff;border-left-color:var(--accent);font-weight:600}
.pf-menu li.pf-disabled a{color:var(--muted)}
.pf-menu li.pf-active.pf-disabled a{color:var(--text)}
.pf-count{min-width:22px;text-align:center;border-radius:10px;padding:0 7px;font-size:11.5px;font-weight:700;background:#d1d5db;color:#111}
.pf-count-error{background:var(--err);color:#fff}
.pf-count-warning{background:var(--warn);color:#fff}
.pf-main{flex:1;min-width:0;background:var(--panel);margin:16px 24px 24px 0;border-radius:10px;border:1px solid var(--line);padding:20px 26px 28px;box-shadow:0 1px 2px rgba(0,0,0,.04)}
.pf-main.pf-wide{margin-left:24px}
.pf-main h2{margin:0 0 14px;font-size:21px}
.pf-main h3{margin:26px 0 10px;font-size:15.5px;border-bottom:1px solid var(--line);padding-bottom:6px}
.pf-empty{color:var(--muted);font-style:italic;background:#f9fafb;border:1px dashed var(--line);border-radius:8px;padding:10px 14px}
table{border-collapse:collapse;width:100%;margin:0 0 8px}
th,td{text-align:left;vertical-align:top;padding:6px 10px;border-bottom:1px solid var(--line)}
thead th{font-size:11.5px;text-transform:uppercase;letter-spacing:.5px;color:var(--muted);background:#f9fafb}
tbody tr:hover{background:#fafafe}
.pf-kv th[scope=row]{width:28%;font-family:var(--mono);font-size:12.5px;font-weight:600;word-break:break-all}
.pf-kv td{word-break:break-all}
.pf-json{margin:0;white-space:pre-wrap;word-break:break-all;background:#f6f8fa;border-radius:6px;padding:6px 8px;max-height:340px;overflow:auto}
.pf-str{font-family:var(--mono);font-size:12.5px}
.pf-null{color:var(--muted);font-style:italic}
.pf-scalar{font-family:var(--mono);color:#7c3aed}
.pf-cards{display:flex;flex-wrap:wrap;gap:12px;margin:0 0 18px}
.pf-card{flex:1 1 150px;border:1px solid var(--line);border-radius:10px;padding:12px 14px;background:#fcfcfd}
.pf-card b{display:block;font-size:22px;font-weight:700}
.pf-card span{font-size:11.5px;text-transform:uppercase;letter-spacing:.5px;color:var(--muted)}
.pf-tabs{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 6px}
.pf-tabs a{border:1px solid var(--line);border-radius:16px;padding:3px 12px;font-size:12.5px;color:var(--text);background:#fff}
.pf-tabs a:hover{border-color:var(--accent);text-decoration:none}
.pf-badge{display:inline-block;border-radius:4px;padding:1px 7px;font-size:11px;font-weight:700;letter-spacing:.3px;text-transform:uppercase;background:#e5e7eb;color:#374151;white-space:nowrap}
.pf-badge-error{background:var(--err-bg);color:var(--err)}
.pf-badge-warning{background:var(--warn-bg);color:var(--warn)}
.pf-badge-success{background:var(--ok-bg);color:var(--ok)}
.pf-badge-info{background:var(--info-bg);color:var(--info)}
.pf-badge-muted{background:#f3f4f6;color:var(--muted)}
tr.pf-row-error{background:#fff7f7}
tr.pf-row-warning{background:#fffcf5}
tr.pf-row-match{background:var(--ok-bg)}
tr.pf-row-muted td{color:var(--muted)}
.pf-filters{display:flex;flex-wrap:wrap;align-items:flex-end;gap:10px 14px;background:#f9fafb;border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin:0 0 14px}
.pf-filters label{display:flex;flex-direction:column;font-size:11.5px;text-transform:uppercase;letter-spacing:.4px;color:var(--muted);gap:3px}
.pf-filters input,.pf-filters select{font:inherit;font-size:13.5px;text-transform:none;letter-spacing:0;color:var(--text);border:1px solid #d1d5db;border-radius:6px;padding:5px 8px;background:#fff;min-width:110px}
.pf-msg{word-break:break-word}
.pf-msg details{margin-top:4px}
.pf-msg summary{cursor:pointer;color:var(--muted);font-size:12px}
.pf-exception{border:1px solid #f3c5c5;border-left:4px solid var(--err);border-radius:8px;padding:12px 16px;margin:0 0 14px;background:#fffafa}
.pf-exception h3{margin:0 0 4px;border:0;padding:0;font-size:14px;color:var(--err);font-family:var(--mono)}
.pf-exception .pf-exc-msg{font-size:17px;font-weight:600;margin:4px 0 8px;word-break:break-word}
.pf-frames{list-style:none;margin:8px 0 0;padding:0;font-family:var(--mono);font-size:12.5px}
.pf-frames li{padding:3px 8px;border-radius:4px}
.pf-frames li.pf-vendor{color:var(--muted)}
.pf-frames li.pf-app{background:#fff1f1}
.pf-frames .pf-fn{font-weight:700}
.pf-iframe{width:100%;height:560px;border:1px solid var(--line);border-radius:8px;background:#fff}
.pf-waterfall{width:100%;height:auto;border:1px solid var(--line);border-radius:8px;background:#fff}
.pf-waterfall text{font-family:var(--mono);font-size:11.5px;fill:#1f2328}
.pf-waterfall .pf-wf-hook{font-weight:700;font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,sans-serif;font-size:12.5px}
.pf-waterfall .pf-wf-axis{fill:#6b7280;font-size:10.5px}
.pf-waterfall .pf-wf-dur{fill:#374151;font-size:10.5px}
.pf-bar-inline{display:inline-block;height:8px;border-radius:4px;background:var(--accent);vertical-align:middle;margin-right:6px;min-width:2px}
.pf-legend{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0 0;font-size:12px;color:var(--muted)}
.pf-legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.pf-search-table td{white-space:nowrap}
.pf-search-table td.pf-url{white-space:normal;word-break:break-all}
.pf-notfound{max-width:720px;margin:48px auto;text-align:center}
.pf-notfound h2{font-size:26px}
@media (max-width:900px){.pf-body{flex-direction:column}.pf-nav{position:static;width:100%}.pf-main{margin:0 12px 12px}}
`;
