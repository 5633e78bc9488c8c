import { createApp, type App, type AppOptions } from '../../src/index.ts';

/** A test app (debug `dev` unless told otherwise) whose log lines are captured. */
export function testApp(options: AppOptions = {}): { app: App; lines: string[] } {
  const lines: string[] = [];
  const app = createApp({ env: 'dev', logSink: (l) => lines.push(l), environment: {}, ...options });
  return { app, lines };
}

export const ORIGIN = 'http://localhost';

/** Sends a request through `app.fetch`. */
export function send(app: App, path: string, init: RequestInit & { remoteAddress?: string } = {}): Promise<Response> {
  const { remoteAddress, ...rest } = init;
  const url = /^https?:\/\//.test(path) ? path : ORIGIN + path;
  return Promise.resolve(app.fetch(new Request(url, rest), remoteAddress ? { remoteAddress } : undefined));
}

/** `name=value` pairs of the response's Set-Cookie lines (value '' for a cleared cookie). */
export function setCookies(response: Response): Map<string, { value: string; line: string }> {
  const out = new Map<string, { value: string; line: string }>();
  for (const line of response.headers.getSetCookie()) {
    const eq = line.indexOf('=');
    const semi = line.indexOf(';');
    const name = line.slice(0, eq);
    const raw = line.slice(eq + 1, semi < 0 ? undefined : semi);
    out.set(name, { value: /Max-Age=0/.test(line) ? '' : decodeURIComponent(raw), line });
  }
  return out;
}

/** Parsed JSON log lines (apps created with logFormat 'json'). */
export function records(lines: string[]): { channel: string; level_name: string; message: string; context: Record<string, unknown> }[] {
  return lines.map((l) => JSON.parse(l));
}

export const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A promise and the function that settles it: lets a test hold a request inside its controller. */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
