import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';

/** Debug mode's answer for `/` when no route serves it: a 404 page saying there is no homepage yet. */
export function welcomePage(request: KernelRequest, profilerHome: string): HttpResponse {
  void request;
  const body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8" />
<meta name="robots" content="noindex,nofollow" />
<title>Welcome to irms-web!</title>
</head>
<body>
<h1>Welcome to irms-web</h1>
<p>You're seeing this page because you haven't configured any homepage URL and debug mode is enabled.</p>
<p>Add a route for <code>/</code> with <code>createApp({ routes: [...] })</code>.</p>
<ul>
<li><a href="${profilerHome}">Profiler</a>: the requests this server handled.</li>
<li><a href="${profilerHome}search">Search requests</a>.</li>
</ul>
</body>
</html>
`;
  return HttpResponse.html(body, 404);
}
