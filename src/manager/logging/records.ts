/**
 * What the manager logs about runs, informers and leadership: one record each, with its level and message.
 */
import type { EventReport } from '../../client/index.js';
import { keyFor } from '../../objects/index.js';
import type { LeaderEvent } from '../../leader/index.js';
import type { WatchStatus } from '../../watch/index.js';
import type {
  ReconcileDropped,
  ReconcileFailed,
  ReconcileRequeued,
  ReconcileRetrying,
  ReconcileSucceeded,
  StaleRead,
} from '../../controller/index.js';
import { resultOf } from '../metrics/index.js';
import type { LogFields, ManagerLogger } from './logger.js';

/**
 * One record per reconcile outcome: `reconciled` (info) for a success or a requeue, `reconcile failed` (error)
 * for a failure, with controller, key, reasons, attempt, durationMs, queueWaitMs, result and, for a failure, the
 * error (with its stack), whether it is terminal, and the retry delay, the drop or `gateClosed` (the gate closed
 * during the run: not counted, the key runs again when it opens).
 */
export function logOutcome(
  logger: ManagerLogger,
  controller: string,
  run: ReconcileSucceeded | ReconcileFailed,
  next: ReconcileRequeued | ReconcileRetrying | ReconcileDropped | undefined,
): void {
  const result = resultOf(run, next);
  const fields: Record<string, unknown> = {
    controller,
    key: run.key,
    reasons: run.reasons,
    attempt: run.attempt,
    durationMs: run.durationMs,
    queueWaitMs: run.queueWaitMs,
    result,
  };
  if (next?.type === 'requeued') fields.requeueAfterMs = next.delayMs;
  if (run.type === 'succeeded') {
    logger.info(fields, 'reconciled');
    return;
  }
  fields.error = run.error instanceof Error ? run.error : { message: String(run.error) };
  fields.terminal = run.terminal;
  if (next?.type === 'retrying') fields.retryInMs = next.delayMs;
  if (next !== undefined && next.type !== 'requeued') fields.failures = next.failures;
  if (next?.type === 'dropped') fields.dropped = true;
  if (run.gateClosed === true) fields.gateClosed = true;
  logger.error(fields, 'reconcile failed');
}

/**
 * One record (warn, `reconcile reads a stale cache`) per run that starts before its caches show the writes of its
 * key's last runs: read-your-own-writes waited `waitedMs` and gave up. `behind` names each object the caches lack
 * as `Kind key@resourceVersion` (`deleted` for a delete), with the cache's resourceVersion.
 */
export function logStaleRead(logger: ManagerLogger, controller: string, key: string, staleRead: StaleRead): void {
  const behind = staleRead.behind.map(
    (object) =>
      `${object.resource.kind} ${object.key}${object.deleted ? ' deleted' : `@${object.resourceVersion ?? '?'}`} (cache at ${object.cacheResourceVersion || 'nothing'})`,
  );
  logger.warn({ controller, key, waitedMs: staleRead.waitedMs, behind }, 'reconcile reads a stale cache');
}

/**
 * One record per change of an informer's connection state: `informer <state>`, warn for `error` and
 * `backingOff`, error for `failed` (`informer failed for good`), info otherwise (`listing` only for its first page).
 */
export function logInformerStatus(logger: ManagerLogger, informer: string, status: WatchStatus): void {
  const fields: Record<string, unknown> = { informer, state: status.state };
  switch (status.state) {
    case 'connecting':
      logger.debug(fields, 'informer connecting');
      return;
    case 'listing':
      if (status.page === 1) logger.info(fields, 'informer listing');
      return;
    case 'watching':
      logger.info({ ...fields, resourceVersion: status.resourceVersion }, 'informer watching');
      return;
    case 'backingOff':
      logger.warn(
        { ...fields, ...causeFields(status.cause), delayMs: status.delayMs, attempt: status.attempt },
        'informer backing off',
      );
      return;
    case 'error':
      logger.warn({ ...fields, ...causeFields(status.cause) }, 'informer error');
      return;
    case 'failed':
      logger.error({ ...fields, ...causeFields(status.cause) }, 'informer failed for good');
      return;
  }
}

function causeFields(cause: { readonly reason: string; readonly message: string; readonly code?: number }): LogFields {
  return cause.code === undefined
    ? { reason: cause.reason, message: cause.message }
    : { reason: cause.reason, code: cause.code, message: cause.message };
}

/**
 * One record per Lease event: `lease acquired`, `lease holder observed`, `lease released` (info), `leadership lost`
 * (error), `lease request failed` (warn), `lease renewed` and `lease conflict` (debug: expected between candidates).
 */
export function logLeaderEvent(logger: ManagerLogger, event: LeaderEvent): void {
  switch (event.type) {
    case 'acquired':
      logger.info({ leaseTransitions: event.leaseTransitions }, 'lease acquired');
      return;
    case 'renewed':
      logger.debug({}, 'lease renewed');
      return;
    case 'leader':
      logger.info({ holder: event.holder }, 'lease holder observed');
      return;
    case 'lost':
      logger.error(
        { reason: event.reason, ...(event.holder === undefined ? {} : { holder: event.holder }) },
        'leadership lost',
      );
      return;
    case 'conflict':
      logger.debug({ phase: event.phase, error: event.error }, 'lease conflict');
      return;
    case 'failed':
      logger.warn({ phase: event.phase, error: event.error }, 'lease request failed');
      return;
    case 'released':
      logger.info({}, 'lease released');
      return;
  }
}

/**
 * One record per Event the recorder could not deliver as asked: `event write failed` (error: refused or out of
 * tries), `event dropped` (warn: queue full or recorder closed), `event rejected` (warn: invalid input),
 * `event write retrying` (debug) and `event filtered` (debug: the spam filter, as client-go). Writes that landed log
 * nothing: they are on the server.
 */
export function logEventReport(logger: ManagerLogger, report: EventReport): void {
  if (report.type === 'rejected') {
    logger.warn({ error: report.error }, 'event rejected');
    return;
  }
  const { event } = report;
  const about: LogFields = {
    event: `${event.metadata.namespace}/${event.metadata.name}`,
    reason: event.reason,
    type: event.type,
    regarding: describeReference(event.regarding),
  };
  switch (report.type) {
    case 'failed':
      logger.error({ ...about, attempts: report.attempts, error: report.error }, 'event write failed');
      return;
    case 'dropped':
      logger.warn({ ...about, dropReason: report.reason }, 'event dropped');
      return;
    case 'retrying':
      logger.debug(
        { ...about, attempt: report.attempt, delayMs: report.delayMs, error: report.error },
        'event write retrying',
      );
      return;
    case 'filtered':
      logger.debug(about, 'event filtered');
      return;
    case 'created':
    case 'updated':
      return;
  }
}

function describeReference(reference: {
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
}): string {
  return `${reference.kind ?? '?'} ${reference.name === undefined ? '?' : keyFor(reference.name, reference.namespace)}`;
}
