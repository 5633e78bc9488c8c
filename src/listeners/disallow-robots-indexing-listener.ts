import type { ResponseEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';

/**
 * Symfony's DisallowRobotsIndexingListener: `X-Robots-Tag: noindex` on every response that does not
 * carry an `X-Robots-Tag` already — errors, redirects and early answers included. Registered only when
 * the `disallowRobotsIndexing` setting is on (the default in every environment).
 */
export class DisallowRobotsIndexingListener {
  readonly onResponse = listener<'kernel.response'>('DisallowRobotsIndexingListener::onResponse', 'robots indexing disallow', (event: ResponseEvent) => {
    const headers = event.response.headers;
    if (!headers.has('x-robots-tag')) headers.set('x-robots-tag', 'noindex');
  });
}
