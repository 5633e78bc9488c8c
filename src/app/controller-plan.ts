import type { KernelRequest } from '../http/request.ts';
import type { ControllerHooks, ControllerPlan } from '../kernel/kernel.ts';
import type { HookTable, Listener, RouteFacts } from '../kernel/hooks.ts';
import type { Router } from '../routing/router.ts';

/**
 * Production: for each route, the controller hooks without the listeners that are idle for it
 * (`Listener.idleFor`: route options the route does not have). A route without options skips eight
 * listener calls. Only when the app registered no listener of its own: one could set the attributes
 * those listeners read. Debug mode never uses a plan, so its trace, `event` logs and profiles list
 * every listener of the contract's tables.
 */
export function controllerPlan(router: Router, hooks: HookTable): ControllerPlan | null {
  const plans = new Map<string, ControllerHooks>();
  for (const route of router.routes) {
    const facts: RouteFacts = { options: route.options, attributes: new Set([...Object.keys(route.defaults), ...route.variables]) };
    const controller = active(hooks['kernel.controller'], facts);
    const args = active(hooks['kernel.controller_arguments'], facts);
    if (controller.length < hooks['kernel.controller'].length || args.length < hooks['kernel.controller_arguments'].length) {
      plans.set(route.name, { 'kernel.controller': controller, 'kernel.controller_arguments': args });
    }
  }
  if (plans.size === 0) return null;
  return (request: KernelRequest) => {
    const name = request.attributes.get('_route');
    return typeof name === 'string' ? plans.get(name) : undefined;
  };
}

function active<L extends Listener<'kernel.controller'> | Listener<'kernel.controller_arguments'>>(listeners: L[], route: RouteFacts): L[] {
  return listeners.filter((l) => !l.idleFor?.(route));
}
