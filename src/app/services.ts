import type { HttpKernel } from '../kernel/kernel.ts';
import type { LogStream } from '../log/logger.ts';
import type { Router } from '../routing/router.ts';
import type { AppConfig } from './config.ts';

/**
 * What listeners are built from: plain objects created once per app in create-app.ts and handed to
 * listener constructors. No container — the wiring is the code in listeners.ts.
 */
export interface AppServices {
  readonly config: AppConfig;
  readonly router: Router;
  readonly logStream: LogStream;
  /** Set once the kernel exists (listeners that need it read it lazily). */
  kernel?: HttpKernel;
}
