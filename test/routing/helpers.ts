import assert from 'node:assert/strict';
import {
  MethodNotAllowedException,
  NoConfigurationException,
  ResourceNotFoundException,
} from '../../src/kernel/exceptions.ts';
import type { RouteDefinition } from '../../src/routing/route.ts';
import { Router, type RouteMatch } from '../../src/routing/router.ts';

export const controller = (): null => null;

/** A route definition with a no-op controller. */
export function route(
  name: string,
  path: string,
  methods?: string[],
  extra: Partial<Omit<RouteDefinition, 'name' | 'path' | 'methods'>> = {},
): RouteDefinition {
  return { name, path, ...(methods ? { methods } : {}), controller, ...extra };
}

export function router(...routes: RouteDefinition[]): Router {
  return new Router(routes);
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail('expected an exception, got a result');
}

/** Asserts a plain 404 (ResourceNotFoundException, not NoConfigurationException) with this message. */
export function expectNotFound(r: Router, path: string, method: string, message: string): void {
  const error = caught(() => r.match(path, method));
  assert.ok(error instanceof ResourceNotFoundException, `expected ResourceNotFoundException, got ${String(error)}`);
  assert.ok(!(error instanceof NoConfigurationException), 'expected a plain 404, got NoConfigurationException');
  assert.equal(error.message, message);
}

export function expectNoConfiguration(r: Router, path: string, method: string): void {
  const error = caught(() => r.match(path, method));
  assert.ok(error instanceof NoConfigurationException, `expected NoConfigurationException, got ${String(error)}`);
  assert.equal(error.message, '');
}

export function expectMethodNotAllowed(r: Router, path: string, method: string, allowed: string[]): void {
  const error = caught(() => r.match(path, method));
  assert.ok(error instanceof MethodNotAllowedException, `expected MethodNotAllowedException, got ${String(error)}`);
  assert.equal(error.message, '');
  assert.deepEqual(error.allowedMethods, allowed);
}

/** Asserts a normal (non-redirect) match of the named route and returns it. */
export function expectMatch(r: Router, path: string, method: string, name: string): RouteMatch {
  const m = r.match(path, method);
  assert.equal(m.route.name, name);
  assert.equal(m.redirectPath, undefined, `unexpected redirect to ${m.redirectPath}`);
  return m;
}

export function expectRedirect(r: Router, path: string, method: string, name: string, to: string): RouteMatch {
  const m = r.match(path, method);
  assert.equal(m.route.name, name);
  assert.equal(m.redirectPath, to);
  return m;
}
