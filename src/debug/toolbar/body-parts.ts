/**
 * Responses whose HTML body was built in two parts around its last `</body>` (the debug error page).
 * The toolbar then goes between the parts without searching the body: a search would first copy the
 * page's rope of template parts (about 50 KB) into one string, and the page with the toolbar is
 * copied again when it is written. Kept by response object: nothing outlives the response.
 */
interface BodyParts {
  readonly body: string;
  readonly head: string;
  readonly tail: string;
}

const parts = new WeakMap<object, BodyParts>();

/** The body `head + tail`, remembered for `response` as split at `tail`'s start. */
export function splitBody(response: object, head: string, tail: string): string {
  const body = head + tail;
  parts.set(response, { body, head, tail });
  return body;
}

/** The parts of `body` when it is still the body split for this response, else null (search it). */
export function bodyParts(response: object, body: unknown): { head: string; tail: string } | null {
  const known = parts.get(response);
  return known !== undefined && known.body === body ? known : null;
}
