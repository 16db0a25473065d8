/**
 * The recorder's options: defaults (client-go's numbers where it has them) and validation at creation time, so a
 * misconfiguration is an exception where the recorder is made, never a failure later.
 */
import type { SchedulerLike } from 'rxjs';
import type { BackoffPolicy } from '../../backoff/index.js';
import { monotonicScheduler } from '../../clock/index.js';
import { checkWarningHandler, printWarningOnce } from '../../transport/index.js';
import type { WarningHandler } from '../../transport/index.js';
import { qualifiedNameProblem } from './build.js';
import { DEFAULT_SPAM_BURST, DEFAULT_SPAM_OBJECTS, DEFAULT_SPAM_QPS } from './spam-filter.js';
import type { EventRecorderOptions } from './recording.js';
import type { SpamFilterOptions } from './types.js';

/** client-go's `finishTime`: a series ends 6 minutes after its last occurrence. */
const SERIES_WINDOW_MS = 6 * 60_000;
/** client-go's `refreshTime`: a live series is written every 30 minutes. */
const SERIES_REFRESH_MS = 30 * 60_000;
/** client-go's `maxQueuedEvents`. */
const MAX_PENDING = 1000;
/** client-go's `maxTriesPerEvent`. */
const MAX_ATTEMPTS = 12;
const RETRY_BACKOFF: BackoffPolicy = { baseMs: 1000, factor: 2, capMs: 30_000 };
const REQUEST_TIMEOUT_MS = 10_000;
const DRAIN_TIMEOUT_MS = 10_000;
const CONCURRENCY = 4;
const MAX_SERIES = 4096;
/** The API's `ReportingInstanceLengthLimit`. */
const INSTANCE_LIMIT = 128;
/** The API's `FieldManagerMaxLength`, in bytes. */
const FIELD_MANAGER_LIMIT = 128;

/** Options with every default filled in. */
export interface RecorderSettings {
  readonly reportingController: string;
  readonly reportingInstance: string;
  readonly fieldManager: string;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly seriesWindowMs: number;
  readonly seriesRefreshMs: number;
  readonly spamFilter: Required<SpamFilterOptions> | false;
  readonly maxPending: number;
  readonly concurrency: number;
  readonly maxAttempts: number;
  readonly retryBackoff: BackoffPolicy;
  readonly requestTimeoutMs: number;
  readonly maxSeries: number;
  readonly drainTimeoutMs: number;
  readonly onWarning: WarningHandler;
  /** A flush/close time limit: the given one, checked, or the default. */
  checkTimeout(timeoutMs: number | undefined): number;
}

function check(name: string, value: number | undefined, ok: (v: number) => boolean, want: string): void {
  if (value !== undefined && (typeof value !== 'number' || Number.isNaN(value) || !ok(value))) {
    throw new RangeError(`eventRecorder: ${name} must be ${want}, got ${String(value)}`);
  }
}

const positive = (v: number): boolean => v > 0;
const atLeastOne = (v: number): boolean => Number.isInteger(v) && v >= 1;

/**
 * Validates `options` and fills in the defaults. Throws a `TypeError`/`RangeError` naming the bad option.
 * `host` gives the default `reportingInstance` (`<controller>-<host>`, cut to 128 characters).
 */
export function resolveRecorderOptions(options: EventRecorderOptions, host: () => string): RecorderSettings {
  if (options === null || typeof options !== 'object')
    throw new TypeError('eventRecorder: options { reportingController } are required');
  const controller = options.reportingController;
  if (typeof controller !== 'string')
    throw new TypeError('eventRecorder: reportingController is required (e.g. "example.com/my-controller")');
  const problem = qualifiedNameProblem(controller);
  if (problem !== undefined)
    throw new RangeError(`eventRecorder: reportingController ${JSON.stringify(controller)} ${problem}`);
  const instance = options.reportingInstance ?? `${controller}-${host()}`.slice(0, INSTANCE_LIMIT);
  if (typeof instance !== 'string' || instance === '' || instance.length > INSTANCE_LIMIT) {
    throw new RangeError(
      `eventRecorder: reportingInstance must be a non-empty string of at most ${INSTANCE_LIMIT} characters`,
    );
  }
  const fieldManager = options.fieldManager ?? controller;
  if (
    typeof fieldManager !== 'string' ||
    fieldManager === '' ||
    Buffer.byteLength(fieldManager) > FIELD_MANAGER_LIMIT ||
    !/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]+$/u.test(fieldManager)
  ) {
    throw new RangeError(
      `eventRecorder: fieldManager must be 1 to ${FIELD_MANAGER_LIMIT} bytes of printable characters, got ${JSON.stringify(fieldManager)}`,
    );
  }
  check('seriesWindowMs', options.seriesWindowMs, positive, 'a number of ms > 0');
  check('seriesRefreshMs', options.seriesRefreshMs, positive, 'a number of ms > 0');
  check('maxPending', options.maxPending, atLeastOne, 'an integer >= 1');
  check('concurrency', options.concurrency, atLeastOne, 'an integer >= 1');
  check('maxAttempts', options.maxAttempts, atLeastOne, 'an integer >= 1');
  check('requestTimeoutMs', options.requestTimeoutMs, positive, 'a number of ms > 0');
  check('maxSeries', options.maxSeries, atLeastOne, 'an integer >= 1');
  check('drainTimeoutMs', options.drainTimeoutMs, (v) => v >= 0, 'a number of ms >= 0');
  const backoff = options.retryBackoff ?? RETRY_BACKOFF;
  check('retryBackoff.baseMs', backoff.baseMs, (v) => v >= 0, 'a number of ms >= 0');
  check('retryBackoff.factor', backoff.factor, (v) => v >= 1, 'a number >= 1');
  check('retryBackoff.capMs', backoff.capMs, (v) => v >= 0, 'a number of ms >= 0');
  if (options.random !== undefined && typeof options.random !== 'function')
    throw new TypeError('eventRecorder: random must be a function');
  checkWarningHandler('eventRecorder', options.onWarning);
  const spam = options.spamFilter;
  if (spam !== undefined && spam !== false) {
    check('spamFilter.burst', spam.burst, atLeastOne, 'an integer >= 1');
    check('spamFilter.qps', spam.qps, positive, 'a number > 0');
    check('spamFilter.maxObjects', spam.maxObjects, atLeastOne, 'an integer >= 1');
  }
  const drainTimeoutMs = options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS;
  return {
    reportingController: controller,
    reportingInstance: instance,
    fieldManager,
    scheduler: options.scheduler ?? monotonicScheduler,
    random: options.random ?? Math.random,
    seriesWindowMs: options.seriesWindowMs ?? SERIES_WINDOW_MS,
    seriesRefreshMs: options.seriesRefreshMs ?? SERIES_REFRESH_MS,
    spamFilter:
      spam === false
        ? false
        : {
            burst: spam?.burst ?? DEFAULT_SPAM_BURST,
            qps: spam?.qps ?? DEFAULT_SPAM_QPS,
            maxObjects: spam?.maxObjects ?? DEFAULT_SPAM_OBJECTS,
          },
    maxPending: options.maxPending ?? MAX_PENDING,
    concurrency: options.concurrency ?? CONCURRENCY,
    maxAttempts: options.maxAttempts ?? MAX_ATTEMPTS,
    retryBackoff: backoff,
    requestTimeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    maxSeries: options.maxSeries ?? MAX_SERIES,
    drainTimeoutMs,
    onWarning: options.onWarning ?? printWarningOnce,
    checkTimeout(timeoutMs) {
      check('flush timeoutMs', timeoutMs, (v) => v >= 0, 'a number of ms >= 0');
      return timeoutMs ?? drainTimeoutMs;
    },
  };
}
