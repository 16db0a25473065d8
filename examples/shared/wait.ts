/**
 * Bounded polling for the specs (the examples' and rxkube's own) that wait on real I/O (servers, child processes).
 * Every wait has a deadline and a description, so a hung condition fails with a message instead of a mocha timeout,
 * and no wall-clock duration is ever asserted.
 * @module
 */

/** Polls `condition` until it is true; rejects after `limitMs` naming `what` (a function is evaluated at failure). */
export async function waitFor(condition: () => boolean, what: string | (() => string), limitMs = 5000): Promise<void> {
  await waitForAsync(async () => condition(), what, limitMs, 10);
}

/** {@link waitFor} for an asynchronous condition, e.g. one that lists from the server. */
export async function waitForAsync(
  condition: () => Promise<boolean>,
  what: string | (() => string),
  limitMs = 5000,
  intervalMs = 25,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${limitMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
