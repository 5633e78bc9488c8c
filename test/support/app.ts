/**
 * A production app for tests that read responses, not logs: no environment variables, logs discarded.
 * Options given override these (`defaultLocale`, `routes`, even `debug`).
 */
import { createApp, type App, type AppOptions } from '../../src/index.ts';

export function quietApp(options: AppOptions = {}): App {
  return createApp({ env: 'prod', debug: false, environment: {}, logSink: () => {}, ...options });
}
