/** What the server entries (Node and Deno) and `serve()` say about the address they listen on. */

/** 127.0.0.0/8, ::1, localhost (and IPv4-mapped loopback): only these keep debug pages private. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** The host as it goes into a URL (IPv6 in brackets). */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The one line both entries print once listening (tests and scripts wait for it). */
export function listeningLine(host: string, port: number, env: string, debug: boolean): string {
  return `irms-web listening on http://${urlHost(host)}:${port} (env=${env}, debug=${debug})`;
}

/** The WARNING logged when debug mode listens on a non-loopback address. */
export function publicDebugWarning(host: string): string {
  return `Debug mode is on and HOST=${host} is not a loopback address: the debug error pages and the profiler expose source code, configuration and request data to anyone who can reach this port. Set APP_DEBUG=0 (or APP_ENV=prod) or HOST=127.0.0.1.`;
}
