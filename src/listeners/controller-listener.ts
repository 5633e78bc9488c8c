import type { ControllerEvent } from '../kernel/events.ts';
import { listener, idleWhen, isSet } from '../kernel/hooks.ts';

/** Route options read as "annotations", and the request attribute each one becomes (Sensio's aliases). */
export const ANNOTATION_ATTRIBUTES = Object.freeze({
  cache: '_cache',
  template: '_template',
  converters: '_converters',
  security: '_security',
  isGranted: '_is_granted',
  stateless: '_stateless',
} as const);

const OPTION_NAMES = Object.keys(ANNOTATION_ATTRIBUTES) as (keyof typeof ANNOTATION_ATTRIBUTES)[];

/**
 * SensioFrameworkExtraBundle's ControllerListener: reads the controller's configuration — here the
 * matched route's options (`cache`, `template`, `converters`, `security`, `isGranted`, `stateless`) —
 * into request attributes (`_cache`, `_template`, `_converters`, `_security`, `_is_granted`,
 * `_stateless`) for the listeners that act on them. Options already set as attributes (e.g. by a user
 * listener) are kept.
 */
export class ControllerListener {
  readonly onKernelController = idleWhen(
    listener<'kernel.controller'>('ControllerListener::onKernelController', 'controller annotation handling', (event: ControllerEvent) => {
      const attributes = event.request.attributes;
      const options = attributes.get('_route_options') as Record<string, unknown> | undefined;
      if (!options) return;
      for (let i = 0; i < OPTION_NAMES.length; i++) {
        const name = OPTION_NAMES[i];
        const value = options[name];
        if (!isSet(value)) continue;
        const attribute = ANNOTATION_ATTRIBUTES[name];
        if (!attributes.has(attribute)) attributes.set(attribute, value);
      }
    }),
    (route) => OPTION_NAMES.every((name) => !isSet(route.options[name])),
  );
}
