import type { GroupProcess } from './processes.js';

/**
 * Polls `probe` until it returns true, failing fast when `process` exits and failing with the process's log tail
 * after `timeoutMs`.
 *
 * # Guarantees
 * - Resolves as soon as a probe succeeds; probes never overlap; a probe that throws counts as "not yet".
 * - Rejects with an `Error` naming `what`, the last probe failure and the tail of the process log, so a failed
 *   start is diagnosable from the test output alone.
 * - Leaves no timer behind once settled.
 */
export async function waitUntilReady(
  what: string,
  process: GroupProcess,
  probe: () => Promise<boolean | string>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no probe finished yet';
  for (let delay = 50; ; delay = Math.min(delay * 2, 250)) {
    if (!process.alive()) {
      throw new Error(
        `${what} exited before becoming ready (${await process.exited}); log ${process.logFile}:\n${process.logTail()}`,
      );
    }
    try {
      const verdict = await probe();
      if (verdict === true) return;
      last = verdict === false ? 'not ready' : verdict;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `${what} not ready after ${timeoutMs} ms (last probe: ${last}); log ${process.logFile}:\n${process.logTail()}`,
      );
    }
    await new Promise<void>((resolve) => setTimeout(resolve, delay));
  }
}
