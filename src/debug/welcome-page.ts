import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import { escapeHtml as esc } from './error-page/escape.ts';

/**
 * Debug mode's answer for `/` when no route serves it (CONTRACT §4.6, Symfony's "Welcome to Symfony!"):
 * status 404, a page saying no homepage is configured, with links to the profiler and the route list.
 * `profilerHome` is the URL of `_profiler_home` (`/_profiler/`).
 */
export function welcomePage(request: KernelRequest, profilerHome: string): HttpResponse {
  void request;
  const home = profilerHome.endsWith('/') ? profilerHome : `${profilerHome}/`;
  const profiler = esc(home);
  const routes = esc(`${home}latest?panel=routing`);
  const body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8" />
<meta name="robots" content="noindex,nofollow" />
<meta name="viewport" content="width=device-width,initial-scale=1" />
<title>Welcome to irms-web!</title>
<link rel="icon" href="data:," />
<style>
:root { --bg: #f4f5f8; --surface: #fff; --text: #1c2230; --muted: #5f6878; --border: #dde1e9; --accent: #4b47d6; --code: #f0f2f6; color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :root { --bg: #111319; --surface: #191c24; --text: #e4e7ee; --muted: #98a1b2; --border: #2d323e; --accent: #8f8bff; --code: #21252f; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center; background: var(--bg); color: var(--text); font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
main { max-width: 680px; margin: 32px 20px; background: var(--surface); border: 1px solid var(--border); border-radius: 14px; padding: 36px 40px; }
h1 { margin: 0 0 6px; font-size: 30px; }
.status { display: inline-block; font-size: 12px; font-weight: 700; letter-spacing: .5px; color: var(--muted); border: 1px solid var(--border); border-radius: 999px; padding: 2px 10px; margin-bottom: 16px; }
p { margin: 0 0 14px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 14px; }
pre { background: var(--code); border-radius: 8px; padding: 12px 14px; overflow-x: auto; margin: 0 0 20px; }
ul { list-style: none; padding: 0; margin: 20px 0 0; display: grid; gap: 10px; }
li a { display: block; padding: 12px 16px; border: 1px solid var(--border); border-radius: 10px; color: var(--text); text-decoration: none; }
li a:hover { border-color: var(--accent); }
li a strong { color: var(--accent); }
li a span { display: block; color: var(--muted); font-size: 14px; }
</style>
</head>
<body>
<main>
<span class="status">404 · DEBUG MODE</span>
<h1>Welcome to irms-web</h1>
<p>You're seeing this page because you haven't configured any homepage URL and debug mode is enabled.</p>
<p>No route serves <code>/</code> yet. Add one to the routes you give <code>createApp</code>:</p>
<pre>createApp({
  routes: [
    { name: 'home', path: '/',
      controller: () =&gt; new Response('Hello!') },
  ],
});</pre>
<ul>
<li><a href="${profiler}"><strong>Profiler</strong><span>Every request this server handled: headers, logs, listeners, timing.</span></a></li>
<li><a href="${routes}"><strong>Routes</strong><span>The route table and how the latest request was matched.</span></a></li>
</ul>
</main>
</body>
</html>
`;
  const response = HttpResponse.html(body, 404);
  // An error status, like the error pages: browsers must not sniff it as anything but HTML.
  response.headers.set('x-content-type-options', 'nosniff');
  return response;
}
