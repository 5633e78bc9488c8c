/**
 * The longest list `Object.keys` returned while `run` ran: how a test shows, without a clock, that
 * code did not list every element of a large typed array or Buffer (a million strings for a 1 MB body).
 */
export async function longestKeyList<T>(run: () => T | Promise<T>): Promise<{ result: T; longest: number }> {
  const keys = Object.keys;
  let longest = 0;
  Object.keys = ((o: object) => {
    const list = keys(o);
    longest = Math.max(longest, list.length);
    return list;
  }) as typeof Object.keys;
  try {
    const result = await run();
    return { result, longest };
  } finally {
    Object.keys = keys;
  }
}
