// Route definitions as the router reads them (src/routing/route.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp } from '../../src/app/create-app.ts';
import type { RouteDefinition } from '../../src/routing/route.ts';
import { Router } from '../../src/routing/router.ts';
import { controller } from './helpers.ts';

test('regression: a debug app\'s first route without a name was reported as "Route #7" (the profiler\'s routes counted); it is named by its path', () => {
  const unnamed = { path: '/m', controller } as unknown as RouteDefinition;
  assert.throws(() => createApp({ env: 'dev', environment: {}, logSink: () => {}, routes: [unnamed] }), { message: 'The route with path "/m" has no name.' });
  assert.throws(() => new Router([{ name: 'a', path: '/a', controller }, { name: '', path: '/b', controller }]), { message: 'The route with path "/b" has no name.' });
  // Without a path either, the router's own index (a Router built directly has no routes before the caller's).
  assert.throws(() => new Router([{ name: 'a', path: '/a', controller }, { controller } as unknown as RouteDefinition]), { message: 'Route #1 has no name.' });
});
