/** What the pod logger's specs share: the lines the demo workload and the fault scenario make it print, in order. */
import { FAIL_ANNOTATION } from './pod-logger.js';

/** The failure a pod annotated `FAIL_ANNOTATION=<mode>` simulates on attempt `attempt`. */
function simulatedFailure(attempt: number, mode: string): string {
  return `simulated failure of attempt ${attempt} (annotation ${FAIL_ANNOTATION}=${mode})`;
}

/**
 * The lines of the demo workload (`runDemoWorkload`), from the start to the delete of web-2: two pods synced, one
 * updated, `flaky` succeeding on its fourth attempt, `doomed` dropped after 5 retries, backing off from 5 ms.
 */
export function demoLines(): string[] {
  const retryIn = (n: number): string => `(retrying in ${5 * 2 ** (n - 1)} ms)`;
  return [
    'Starting Pod controller',
    'Pod cache synced; starting workers',
    'Sync/Add/Update for Pod web-1',
    'Sync/Add/Update for Pod web-2',
    'Sync/Add/Update for Pod web-1',
    ...[1, 2, 3].map((n) => `Error syncing pod default/flaky: ${simulatedFailure(n, '3')} ${retryIn(n)}`),
    'Sync/Add/Update for Pod flaky',
    ...[1, 2, 3, 4, 5].map((n) => `Error syncing pod default/doomed: ${simulatedFailure(n, 'always')} ${retryIn(n)}`),
    `Dropping pod "default/doomed" out of the queue: ${simulatedFailure(6, 'always')}`,
    'Pod default/web-2 does not exist anymore',
  ];
}

/**
 * The lines of the fault scenario both specs run (pods a and b created, watches dropped, a deleted, a 410 relist,
 * a server restart, b updated): each change logged exactly once, watch errors left out.
 */
export function faultScenarioLines(): string[] {
  return [
    'Starting Pod controller',
    'Pod cache synced; starting workers',
    'Sync/Add/Update for Pod a',
    'Sync/Add/Update for Pod b',
    'Pod default/a does not exist anymore',
    'Sync/Add/Update for Pod b',
  ];
}
