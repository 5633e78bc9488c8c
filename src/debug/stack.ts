/** Stack frames parsed from V8 stack strings (Node and Deno). */
export interface StackFrame {
  /** `Class.method`, `functionName`, or '' for top-level code. */
  fn: string;
  file: string;
  line: number;
  column: number;
}

const FRAME_WITH_FN = /^\s*at (?:async )?(.*?) \((.*):(\d+):(\d+)\)$/;
const FRAME_NO_FN = /^\s*at (?:async )?(.*):(\d+):(\d+)$/;

export function parseStack(stack: string | undefined): StackFrame[] {
  if (!stack) return [];
  const frames: StackFrame[] = [];
  for (const line of stack.split('\n')) {
    let m = FRAME_WITH_FN.exec(line);
    if (m) {
      frames.push({ fn: m[1], file: m[2], line: Number(m[3]), column: Number(m[4]) });
      continue;
    }
    m = FRAME_NO_FN.exec(line);
    if (m) frames.push({ fn: '', file: m[1], line: Number(m[2]), column: Number(m[3]) });
  }
  return frames;
}

/** Where an error was thrown: its first frame, or unknown. */
export function throwLocation(error: Error): { file: string; line: number } {
  const first = parseStack(error.stack)[0];
  return first ? { file: stripFileUrl(first.file), line: first.line } : { file: 'unknown', line: 0 };
}

export function stripFileUrl(file: string): string {
  if (!file.startsWith('file://')) return file;
  try {
    return decodeURIComponent(new URL(file).pathname);
  } catch {
    return file.slice(7);
  }
}
