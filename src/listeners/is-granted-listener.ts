import type { ControllerArgumentsEvent } from '../kernel/events.ts';
import { listener, idleWhen, routeLacks } from '../kernel/hooks.ts';
import { getMember, isGrantedAny } from '../security/member.ts';
import { denied } from './security-listener.ts';

/**
 * The `isGranted` route option (Sensio's @IsGranted): a role or authentication attribute
 * (`'ROLE_ADMIN'`, `'IS_AUTHENTICATED_FULLY'`), a list of them (any one grants access, like Symfony's
 * affirmative decision; `PUBLIC_ACCESS` only alone), or `{ attributes, subject?, message?, statusCode? }`,
 * `subject` naming the request attribute (a route parameter, converted) the app's voters decide on.
 */
export type IsGrantedOption = string | string[] | { attributes: string | string[]; subject?: string; message?: string; statusCode?: number | string | null };

/**
 * SensioFrameworkExtraBundle's IsGrantedListener: checks the `isGranted` option (attribute
 * `_is_granted`) against the member's roles before the controller runs. Denied: the login path's
 * redirect (HTML clients) or a 401 for anonymous and remember-me requests, 403 `Access Denied by controller annotation @IsGranted("ROLE_X")` (or the option's
 * message/status) for members.
 */
export class IsGrantedListener {
  readonly onKernelControllerArguments = idleWhen(
    listener<'kernel.controller_arguments'>('IsGrantedListener::onKernelControllerArguments', 'granted-role annotation check', (event: ControllerArgumentsEvent) => {
      const request = event.request;
      const option = request.attributes.get('_is_granted') as IsGrantedOption | undefined;
      if (option === undefined || option === null) return;
      const spec = typeof option === 'object' && !Array.isArray(option) ? option : { attributes: option };
      const attributes = Array.isArray(spec.attributes) ? spec.attributes : [spec.attributes];
      const member = getMember(request);
      const subjectName = 'subject' in spec && typeof spec.subject === 'string' ? spec.subject : null;
      if (subjectName !== null && !request.attributes.has(subjectName)) {
        throw new Error(`Could not find the subject "${subjectName}" for the @IsGranted annotation. Try adding a "$${subjectName}" argument to your controller method.`);
      }
      const subject = subjectName === null ? undefined : request.attributes.get(subjectName);
      if (isGrantedAny(member, attributes, attributes.length === 1, request, subject)) return;
      const listed = attributes.length === 1 ? `"${attributes[0]}"` : `[${attributes.map((a) => `"${a}"`).join(', ')}]`;
      const shown = subjectName === null ? listed : `${listed}, ${subjectName}`;
      // Sensio's IsGrantedListener: `$configuration->getMessage() ?: sprintf(…)`, so an empty message is the default one.
      throw denied(member, spec.message || `Access Denied by controller annotation @IsGranted(${shown})`, spec.statusCode);
    }),
    routeLacks('isGranted', '_is_granted'),
  );
}
