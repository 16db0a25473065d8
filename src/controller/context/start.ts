/**
 * `startController`: the host of one controller on its own, without a manager: the context's informers, clients and
 * event recorder over a connection, its gate and graceful stop.
 */
import {
  concat,
  defer,
  ignoreElements,
  map,
  NEVER,
  Observable,
  of,
  Subscription,
  take,
  type SchedulerLike,
} from 'rxjs';
import { monotonicScheduler } from '../../clock/index.js';
import { eventRecorder, type EventRecorderOptions, type EventReport } from '../../client/index.js';
import { messageOf } from '../../error-messages/index.js';
import { informerFactory, type InformerFactoryOptions } from '../../informer/index.js';
import { printWarningOnce, type Connection } from '../../transport/index.js';
import { DEFAULT_DRAIN_TIMEOUT_MS } from '../reconcile/index.js';
import { reportError } from '../predicates/index.js';
import type { ReconcileEvent } from '../reconcile/index.js';
import { controllerContext } from './context.js';
import type { ControllerContext, ControllerDefinition } from './types.js';
import type { WarningHandler } from 'rxkube/extend';

/** Options of {@link startController}. */
export interface StartControllerOptions {
  /** Where the cluster is: a client-node `KubeConfig`, or any `Transport`. */
  readonly connection: Connection;
  /**
   * Every timer of the controller, its informers, clients and recorder. Default `monotonicScheduler` (from `rxkube/extend`)
   * (monotonic `now()`, virtual inside `TestScheduler.run()`).
   */
  readonly scheduler?: SchedulerLike;
  /** Uniform samples in [0, 1) for every jitter, and `context.random`. Default `Math.random`. */
  readonly random?: () => number;
  /** Runs start only while it is open, e.g. `leaderElection(…)` (it is `context.leader$` too). Default: always open. */
  readonly gate?: Observable<boolean>;
  /** Its first value starts the graceful stop: intake stops, runs in flight drain, Events are flushed, then completion. */
  readonly stop$?: Observable<unknown>;
  /** How long runs in flight may drain after `stop$`, ms; the Events' flush gets as long again. Default 30 000. */
  readonly drainTimeout?: number;
  /**
   * The event recorder's options (`reportingController` defaults to the controller's name); `false`: no recorder
   * (`context.recorder` is `undefined`).
   */
  readonly events?: Partial<EventRecorderOptions> | false;
  /** Options of the informer factory (a scripted `source` in tests); `scheduler`, `random`, `onWarning` default to these. */
  readonly informers?: InformerFactoryOptions;
  /**
   * Receives what the controller survives (`context.reportError`): informers in trouble, sync timeouts, Events that
   * could not be written. Default `reportError`: RxJS's `config.onUnhandledError` if set, else a process warning.
   */
  readonly onError?: (error: Error) => void;
  /** Receives the API server's warnings (`context.onWarning`). Default `printWarningOnce`. */
  readonly onWarning?: WarningHandler;
}

/**
 * Runs `definition` on its own: builds its {@link ControllerContext} over `options.connection` and returns its
 * `ReconcileEvent`s. What `manager()` does for many controllers, without leader election, probes, metrics or logs.
 *
 * ```ts
 * startController(greeter, { connection: kubeConfig }).subscribe();
 * ```
 *
 * # Guarantees
 * - Cold: subscribing builds the context and calls `definition.start` (once per subscription); unsubscribing stops
 *   the controller at once and abandons the Events not yet written.
 * - After `stop$` the controller drains; once it completes, pending Events are flushed (within `drainTimeout`) and
 *   the stream completes.
 * - Nothing lost is silent: an Event the recorder gives up, drops or rejects goes to `onError`, as the controller's
 *   own reports do.
 * - Bad options (no connection, a bad name, a bad recorder option, a negative `drainTimeout`) throw a `TypeError` or
 *   `RangeError` here, not at subscription. An error thrown by `start` errors the stream.
 */
export function startController(
  definition: ControllerDefinition,
  options: StartControllerOptions,
): Observable<ReconcileEvent> {
  return hostController(definition, options);
}

/**
 * {@link startController}, handing each context built to `onContext` before the controller starts: the test kit's
 * hosts read their caches from it. Internal.
 */
export function hostController(
  definition: ControllerDefinition,
  options: StartControllerOptions,
  onContext?: (context: ControllerContext) => void,
): Observable<ReconcileEvent> {
  checkDefinition('startController', definition);
  if (
    typeof options !== 'object' ||
    options === null ||
    typeof options.connection !== 'object' ||
    options.connection === null
  ) {
    throw new TypeError('startController: options.connection (a KubeConfig or a Transport) is required');
  }
  const { connection } = options;
  const scheduler = options.scheduler ?? monotonicScheduler;
  const random = options.random ?? Math.random;
  const drainTimeout = options.drainTimeout ?? DEFAULT_DRAIN_TIMEOUT_MS;
  if (typeof drainTimeout !== 'number' || !Number.isFinite(drainTimeout) || drainTimeout < 0) {
    throw new RangeError(
      `startController: drainTimeout must be a finite number of ms >= 0, got ${String(drainTimeout)}`,
    );
  }
  const onWarning = options.onWarning ?? printWarningOnce;
  const report = (error: Error): void => reportError(error, options.onError);
  const recorderOptions =
    options.events === false
      ? undefined
      : {
          reportingController: definition.name,
          scheduler,
          random,
          onWarning,
          ...options.events,
        };
  // Built once here so that bad recorder options throw now, not at subscription.
  if (recorderOptions !== undefined) {
    try {
      eventRecorder(connection, recorderOptions);
    } catch (error) {
      if (options.events && options.events.reportingController !== undefined) throw error;
      throw new TypeError(
        `startController: the controller's name ${JSON.stringify(definition.name)} is the reportingController of its Events, and ` +
          `${messageOf(error)}; give it a qualified name (such as example.com/pods), or pass events: { reportingController }`,
        { cause: error },
      );
    }
  }
  const gate = options.gate ?? of(true);
  return new Observable<ReconcileEvent>((subscriber) => {
    const recorder = recorderOptions === undefined ? undefined : eventRecorder(connection, recorderOptions);
    const context = controllerContext({
      name: definition.name,
      connection,
      scheduler,
      random,
      gate,
      leader$: gate,
      drainTimeout,
      recorder,
      onWarning,
      reportError: report,
      informers: informerFactory(connection, { scheduler, random, onWarning, ...options.informers }),
      stop$: (options.stop$ ?? NEVER).pipe(
        take(1),
        map(() => undefined),
      ),
    });
    const subscription = new Subscription();
    let closed = false;
    const close = (timeoutMs: number): Observable<never> =>
      defer(() => {
        if (recorder === undefined || closed) return of();
        closed = true;
        return recorder.close({ timeoutMs }).pipe(ignoreElements());
      });
    // Before `start`, which may record at once; in a container of its own, as closing the recorder completes
    // `reports$`, which must not cut the run short.
    if (recorder !== undefined) subscription.add(recorder.reports$.subscribe((lost) => reportLost(lost, report)));
    try {
      onContext?.(context);
      const events$ = definition.start(context);
      if (!(events$ instanceof Observable))
        throw new TypeError(
          `startController: ${definition.name}.start() returned ${typeof events$}, not an Observable`,
        );
      subscription.add(concat(events$, close(drainTimeout)).subscribe(subscriber));
    } catch (error) {
      subscriber.error(error);
    }
    return () => {
      subscription.unsubscribe();
      close(0).subscribe();
    };
  });
}

/** Throws a `TypeError` for anything that is not `{ name, start(context) }`. */
export function checkDefinition(caller: string, definition: ControllerDefinition): void {
  if (typeof definition !== 'object' || definition === null || typeof definition.start !== 'function') {
    throw new TypeError(
      `${caller}: the controller must be { name, start(context) }, got ${definition === null ? 'null' : typeof definition}`,
    );
  }
  if (typeof definition.name !== 'string' || definition.name === '') {
    throw new TypeError(
      `${caller}: the controller's name must be a non-empty string, got ${JSON.stringify(definition.name)}`,
    );
  }
}

/** An Event the recorder gave up, dropped or refused, as an error for `report`. */
function reportLost(lost: EventReport, report: (error: Error) => void): void {
  if (lost.type === 'rejected') {
    report(new Error(`event rejected: ${messageOf(lost.error)}`, { cause: lost.error }));
    return;
  }
  if (lost.type !== 'failed' && lost.type !== 'dropped') return;
  const { event } = lost;
  const about = `event ${event.reason} about ${event.regarding.kind ?? '?'} ${event.regarding.namespace ? `${event.regarding.namespace}/` : ''}${event.regarding.name ?? '?'}`;
  if (lost.type === 'failed')
    report(
      new Error(`${about} not written after ${lost.attempts} tries: ${messageOf(lost.error)}`, { cause: lost.error }),
    );
  else report(new Error(`${about} dropped (${lost.reason})`));
}
