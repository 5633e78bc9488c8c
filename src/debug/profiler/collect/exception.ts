/**
 * The request's exception as a profile shows it: the whole chain, messages and stacks scrubbed and
 * bounded, taken from the log records when the profiler's own listener was skipped. Apart: the
 * scrubbed-stack memo is module state that nothing else touches.
 */
import type { KernelRequest } from '../../../http/request.ts';
import { exceptionChain, statusOf } from '../../../kernel/exceptions.ts';
import { messageOf, safeClassName } from '../../error-page/model.ts';
import { stackBelowMessage, stackOf, throwLocation } from '../../stack.ts';
import { scrubStoredText, scrubText, truncate } from '../mask.ts';
import type { ProfiledException } from '../profile.ts';
import { PROFILE_LIMITS } from './limits.ts';

/**
 * The last few stacks that scrubbing left as they were. An error thrown from the same place has the
 * same stack (every 404 of a URL); comparing it with these is cheaper than scanning it again. Only
 * unchanged stacks are kept: nothing the masking would hide outlives the request.
 */
const cleanStacks: string[] = [];
const CLEAN_STACKS = 4;

function scrubStack(stack: string): string {
  for (let i = 0; i < cleanStacks.length; i++) if (cleanStacks[i] === stack) return stack;
  const scrubbed = scrubText(stack);
  if (scrubbed === stack) {
    if (cleanStacks.length >= CLEAN_STACKS) cleanStacks.pop();
    cleanStacks.unshift(stack);
  }
  return scrubbed;
}

/**
 * The exception chain as stored. Every field is read as the error page reads it (messageOf,
 * safeClassName, stackOf), each on its own: a `message` getter that throws, a `stack` that is no
 * string or a Proxy's trap costs that field (a placeholder), never the profile. The error page
 * survives such errors; the profile of the same request must too.
 */
export function profileException(error: Error): ProfiledException | null {
  let chain: Error[];
  try {
    chain = exceptionChain(error);
  } catch {
    // A `cause` getter or a Proxy trap that throws: the outermost error alone.
    chain = [error];
  }
  let previous: ProfiledException | null = null;
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i]!;
    const { file, line } = throwLocation(e);
    const message = truncate(scrubStoredText(messageOf(e)), 4096);
    previous = {
      class: safeClassName(e),
      message,
      status: safeStatus(e),
      file,
      line,
      stack: truncate(storedStack(e, message), PROFILE_LIMITS.stack),
      previous,
    };
  }
  return previous;
}

/**
 * The stack as stored, its header quoting the message as stored (`message`: scrubbed, cut): the
 * exception page rebuilt from the profile, and the Exception panel, tell the frames from the message
 * by that quote (stackBelowMessage), so a message line that reads like a frame stays message. A stack
 * that does not quote the error's message is kept as it is.
 */
function storedStack(error: Error, message: string): string {
  const stack = stackOf(error) ?? '';
  const raw = messageOf(error);
  const below = stackBelowMessage(stack, raw);
  if (below === stack) return scrubStack(stack);
  const prefix = stack.slice(0, stack.length - below.length - raw.length);
  return scrubText(prefix) + message + scrubStack(below);
}

/** statusOf, or 500 when even `instanceof` throws (a Proxy's getPrototypeOf trap). */
function safeStatus(error: Error): number {
  try {
    return statusOf(error);
  } catch {
    return 500;
  }
}


/**
 * The error of a request whose kernel.exception the profiler's listener did not see: a listener placed
 * ahead of it (an application's, at a higher priority) answered the error and stopped the hook, so
 * the only trace of the throwable is what was logged. Only then: the hook ran for this request and
 * the response is an error. A controller that catches an error, logs it and answers normally has no
 * exception, as in Symfony, whose ExceptionDataCollector records only what reached kernel.exception;
 * that record belongs in the Logs panel alone.
 */
export function exceptionFromLogs(request: KernelRequest, status: number): Error | null {
  if (status < 400 || !kernelExceptionRan(request)) return null;
  const records = request.logRecords;
  for (let i = records.length - 1; i >= 0; i--) {
    const e = records[i]!.context.exception;
    if (e instanceof Error) return e;
  }
  return null;
}

function kernelExceptionRan(request: KernelRequest): boolean {
  const trace = request.trace;
  if (trace === null) return false;
  for (let i = trace.length - 1; i >= 0; i--) if (trace[i]!.hook === 'kernel.exception') return true;
  return false;
}
