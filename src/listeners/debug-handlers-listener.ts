import type { RequestEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';
import type { LogStream } from '../log/logger.ts';
import type { LevelName } from '../log/levels.ts';
import { LEVELS } from '../log/levels.ts';

interface WarningLike extends Error {
  code?: string;
}

type ProcessLike = {
  on?(event: 'warning', handler: (warning: WarningLike) => void): unknown;
  setSourceMapsEnabled?(on: boolean): void;
};

/** Log streams of the apps whose debug handlers are configured (one process listener serves them all). */
const streams = new Set<WeakRef<LogStream>>();
let installed = false;

function onProcessWarning(warning: WarningLike): void {
  const deprecation = warning.name === 'DeprecationWarning';
  const level: LevelName = deprecation ? 'info' : 'warning';
  const message = `${deprecation ? 'User Deprecated' : 'Warning'}: ${warning.message}`;
  const context: Record<string, unknown> = { exception: warning };
  if (warning.code) context.code = warning.code;
  for (const ref of streams) {
    const stream = ref.deref();
    if (!stream) {
      streams.delete(ref);
      continue;
    }
    stream.write({ datetime: new Date(), channel: 'php', level: LEVELS[level], levelName: level, message, context, extra: {} });
  }
}

/**
 * Symfony's DebugHandlersListener::configure (debug only, first main request): the runtime's warnings
 * and deprecations (Node's `process` `warning` event: deprecations, experimental features, listener
 * leaks...) become log records on channel `php` — deprecations at INFO as `User Deprecated: ...`, other
 * warnings at WARNING as `Warning: ...` — and stack traces resolve through source maps, so frames
 * point at src/*.ts rather than the bundle.
 */
export class DebugHandlersListener {
  private configured = false;

  constructor(private readonly logStream: LogStream) {}

  readonly configure = listener<'kernel.request'>('DebugHandlersListener::configure', 'debug handler configuration', (event: RequestEvent) => {
    if (this.configured || !event.request.isMainRequest) return;
    this.configured = true;
    const proc = (globalThis as { process?: ProcessLike }).process;
    proc?.setSourceMapsEnabled?.(true);
    streams.add(new WeakRef(this.logStream));
    if (!installed && typeof proc?.on === 'function') {
      installed = true;
      proc.on('warning', onProcessWarning);
    }
  });
}
