import type { ResponseEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';
import { STREAMED_ATTRIBUTE } from './response-listener.ts';

/**
 * Symfony's StreamedResponseListener sends a StreamedResponse at once instead of buffering it. Here a
 * ReadableStream body is handed to the host as it is (the Node adapter copies it chunk by chunk with
 * backpressure, Fetch hosts stream it, HEAD cancels it in ResponseListener); this listener tells
 * reverse proxies not to buffer it either (`X-Accel-Buffering: no`, unless the app set that header),
 * so each chunk reaches the client as it is produced.
 */
export class StreamedResponseListener {
  readonly onKernelResponse = listener<'kernel.response'>('StreamedResponseListener::onKernelResponse', 'streamed response handling', (event: ResponseEvent) => {
    if (!event.request.isMainRequest) return;
    const response = event.response;
    if (!response.isStreamed && event.request.attributes.get(STREAMED_ATTRIBUTE) !== true) return;
    const headers = response.headers;
    if (!headers.has('x-accel-buffering')) headers.set('x-accel-buffering', 'no');
  });
}
