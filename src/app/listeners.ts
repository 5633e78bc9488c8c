import { welcomePage } from '../debug/welcome-page.ts';
import { emptyHookTable, type HookTable, type Listener } from '../kernel/hooks.ts';
import { ErrorListener } from '../listeners/error-listener.ts';
import { RouterListener } from '../listeners/router-listener.ts';
import type { AppServices } from './services.ts';

/**
 * The application's hook arrays, in the order of CONTRACT §3. Debug-only listeners are left out of
 * the arrays in non-debug mode (not skipped at run time), so production requests never pay for them.
 */
export function buildHookTable(services: AppServices): HookTable {
  const { config, router } = services;
  const debug = config.debug;
  const only = <T>(condition: boolean, value: T): T[] => (condition ? [value] : []);

  const routerListener = new RouterListener(router, debug ? (request) => welcomePage(request, router.generate('_profiler_home')) : null);
  const errorListener = new ErrorListener(debug);

  const table = emptyHookTable();
  table['kernel.request'] = [
    routerListener.onKernelRequest,
  ];
  table['kernel.controller'] = [];
  table['kernel.controller_arguments'] = [
    errorListener.onControllerArguments,
  ];
  table['kernel.view'] = [];
  table['kernel.response'] = [
    ...only(debug, errorListener.removeCspHeader),
  ];
  table['kernel.finish_request'] = [
    routerListener.onKernelFinishRequest,
  ];
  table['kernel.exception'] = [
    errorListener.logKernelException,
    ...only(debug, routerListener.onKernelException as Listener<'kernel.exception'>),
    errorListener.onKernelException,
  ];
  table['kernel.terminate'] = [];
  return table;
}
