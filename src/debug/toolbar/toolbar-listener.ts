import type { AppServices } from '../../app/services.ts';
import type { ResponseEvent } from '../../kernel/events.ts';
import { listener } from '../../kernel/hooks.ts';

/** Symfony's WebDebugToolbarListener: injects the toolbar loader into HTML responses of profiled requests. */
export class WebDebugToolbarListener {
  constructor(private readonly services: AppServices) {}

  readonly onKernelResponse = listener<'kernel.response'>('WebDebugToolbarListener::onKernelResponse', 'debug toolbar injection', (event: ResponseEvent) => {
    void event;
    void this.services;
  });
}
