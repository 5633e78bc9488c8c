import type { KernelRequest } from './request.ts';
import { messageOf } from '../debug/error-page/safe-json.ts';
import { stackOf } from '../debug/stack.ts';

/**
 * Failures of response body streams already logged on their request's logger. A Fetch host learns of
 * such a failure without the request (Deno's `onError(error)`): it skips the ones found here rather
 * than log them a second time, without the url.
 */
export const reportedStreamFailures = new WeakSet<object>();

/**
 * A streamed response handed to a Fetch host, its chunks passed on as they are, except that a failure
 * of its body is first logged on the request's own logger, as the Node adapter logs it (`The response
 * body stream failed: …`, ERROR, channel `app`): the record then carries the request's url, method and
 * id. The failure still reaches the host, which cuts the answer off. Made from the Response Fetch
 * built, so that what Fetch refuses (a body already read) is still refused by it.
 */
export function reportingFailures(response: Response, request: KernelRequest): Response {
  return new Response(reportingStream(response.body!, request), response);
}

function reportingStream(stream: ReadableStream<Uint8Array>, request: KernelRequest): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          report(request, error);
          throw error;
        }
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function report(request: KernelRequest, error: unknown): void {
  try {
    request.logger.error('app', `The response body stream failed: ${stackOf(error) ?? messageOf(error)}`);
    if (typeof error === 'object' && error !== null) reportedStreamFailures.add(error);
  } catch {
    // the log failed: the host reports the failure as it does any other
  }
}
