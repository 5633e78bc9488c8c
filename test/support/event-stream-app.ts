import { createApp, HttpResponse, type AnyListenerRegistration, type App } from '../../src/index.ts';

/**
 * A production app whose `GET /events` answers an event stream: one event at once, then nothing, with
 * `cancel` as the stream's cleanup (an unsubscribe). `onStream` sees each stream made. For the tests of
 * what serve()'s close() waits for and what a long-running server keeps.
 */
export function eventStreamApp(options: {
  cancel?: () => void | Promise<void>;
  onStream?: (stream: ReadableStream<Uint8Array>) => void;
  listeners?: AnyListenerRegistration[];
} = {}): App {
  return createApp({
    env: 'prod',
    debug: false,
    environment: {},
    logSink: () => {},
    listeners: options.listeners ?? [],
    routes: [{
      name: 'events',
      path: '/events',
      controller: () => {
        const stream = new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(new TextEncoder().encode('data: 1\n\n')),
          ...(options.cancel ? { cancel: options.cancel } : {}),
        });
        options.onStream?.(stream);
        return HttpResponse.stream(stream, 200, { 'content-type': 'text/event-stream' });
      },
    }],
  });
}
