import type { ControllerEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';

/** Request attribute PathInfoListener sets. */
export const PATH_INFO_ATTRIBUTE = 'path_info';

/**
 * The application's PathInfoListener: records, before the controller runs, the path information a
 * controller needs without re-parsing the request: `path_info`, the URL-decoded path (the raw one when
 * its percent-encoding is malformed; `request.pathInfo` stays the raw path the router matched).
 */
export class PathInfoListener {
  readonly onKernelController = listener<'kernel.controller'>('PathInfoListener::onKernelController', 'path information', (event: ControllerEvent) => {
    const request = event.request;
    const raw = request.pathInfo;
    let path = raw;
    if (raw.indexOf('%') >= 0) {
      try {
        path = decodeURIComponent(raw);
      } catch {
        path = raw;
      }
    }
    request.attributes.set(PATH_INFO_ATTRIBUTE, path);
  });
}
