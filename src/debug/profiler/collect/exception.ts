/**
 * The request's exception as a profile shows it: the whole chain, messages and stacks scrubbed and
 * bounded, taken from the log records when the profiler's own listener was skipped. Apart: the
 * scrubbed-stack memo is module state that nothing else touches.
 */
import type { KernelRequest } from '../../../http/request.ts';
import { classNameOf, exceptionChain, statusOf } from '../../../kernel/exceptions.ts';
import { throwLocation } from '../../stack.ts';
import { scrubText, truncate } from '../mask.ts';
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

export function profileException(error: Error): ProfiledException | null {
  const chain = exceptionChain(error);
  let previous: ProfiledException | null = null;
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i]!;
    const { file, line } = throwLocation(e);
    previous = {
      class: classNameOf(e),
      message: truncate(scrubText(e.message), 4096),
      status: statusOf(e),
      file,
      line,
      stack: truncate(scrubStack(e.stack ?? ''), PROFILE_LIMITS.stack),
      previous,
    };
  }
  return previous;
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
