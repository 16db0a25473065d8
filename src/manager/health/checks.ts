/**
 * Custom health checks: run with a time limit, never throwing.
 */
import { messageOf } from '../../error-messages/index.js';
import type { HealthCheck } from '../types.js';

/** A check's name and, when it failed, why. */
export type CheckResult = readonly [name: string, failure: string | undefined];

/**
 * Runs every check at once, each bounded by `timeoutMs`.
 *
 * # Guarantees
 * - Resolves (never rejects) with one result per check, in the order given. A check fails when it throws,
 *   rejects, returns (or resolves to) `false`, or has not settled after `timeoutMs`.
 */
export async function runChecks(
  checks: Readonly<Record<string, HealthCheck>>,
  timeoutMs: number,
): Promise<CheckResult[]> {
  return Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<CheckResult> => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
      });
      try {
        const outcome = await Promise.race([
          Promise.resolve()
            .then(() => check())
            .then(
              (value) => (value === false ? 'check returned false' : undefined),
              (error: unknown) => messageOf(error),
            ),
          deadline,
        ]);
        return [name, outcome];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
