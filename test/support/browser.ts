import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { serve, type NodeApp } from '../../src/runtime/node.ts';

/** Debian's Chromium (installed by .ci/run); playwright-core never downloads a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where browser tests write their screenshots (git-ignored). */
export const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
/** Without the background-networking flags Chromium keeps dialling out of this closed network. */
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches headless Chromium (a fresh profile per launch); fails clearly when it is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH.`);
  }
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 20_000 });
}

/** What a browser test file opens before its tests: the app on a free port, and Chromium. */
export interface BrowserSession {
  readonly origin: string;
  readonly browser: Browser;
  close(): Promise<void>;
}

export async function openBrowserSession(app: NodeApp): Promise<BrowserSession> {
  const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
  try {
    const browser = await launchChromium();
    return {
      origin: `http://127.0.0.1:${server.port}`,
      browser,
      async close() {
        await browser.close();
        await server.close(1000);
      },
    };
  } catch (error) {
    await server.close(1000);
    throw error;
  }
}

/**
 * Collects what should never happen on our pages: console errors and warnings (except the page's own
 * expected 404/500 status), page errors, and requests leaving the test server.
 */
export function watchPage(page: Page, origin: string): string[] {
  const problems: string[] = [];
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() !== 'error' && msg.type() !== 'warning') return;
    const text = msg.text();
    if (/^Failed to load resource: the server responded with a status of (404|500)/.test(text) && msg.location().url.startsWith(origin)) return;
    problems.push(`${msg.type()}: ${text}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('about:')) problems.push(`external request: ${url}`);
  });
  return problems;
}
