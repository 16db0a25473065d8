/**
 * A controller hosted over its own faulty view of a virtual cluster, restarted from a fresh manager after each
 * crash: what `simulate` and `runController` both run a definition with.
 * @module
 */
import type { Observable, Observer, Subscription } from 'rxjs';
import { hostController } from '../../controller/context/index.js';
import type { TransportResponse } from '../../transport/index.js';
import type { VirtualCluster } from '../virtual/index.js';
import {
  controllerView,
  type ControllerFaultState,
  type ControllerWrite,
  type CrashReport,
} from './controller-view.js';
import type { ControllerContext, ControllerDefinition, ReconcileEvent } from 'rxkube';

/** How {@link hostRestartable} hosts each incarnation, and what it tells about them. */
export interface RestartableOptions {
  readonly cluster: VirtualCluster;
  /** The faults armed on the controller's view, shared by every incarnation. */
  readonly state: ControllerFaultState;
  /** The context's `random` of incarnation `n` (1 for the first). */
  readonly random: (incarnation: number) => () => number;
  /** Every incarnation's `context.stop$`. */
  readonly stop$?: Observable<unknown>;
  /** Every incarnation's `context.reportError` target. */
  readonly onError?: (error: Error) => void;
  /** Each write of the controller, and its outcome (default: passed on untouched). */
  readonly onWrite?: (write: ControllerWrite, outcome: Observable<TransportResponse>) => Observable<TransportResponse>;
  /** The incarnation crashed (its subscription is ended right after). */
  readonly onCrash?: (crash: CrashReport) => void;
  /** A new incarnation is about to start after a crash (`n` counts from 1). */
  readonly onRestart?: (incarnation: number) => void;
  /** Each incarnation's context, once it has started (subscribed): `undefined` when it failed to. */
  readonly onStarted?: (context: ControllerContext | undefined) => void;
  /** Receives every incarnation's events, and the error or completion of the live one. */
  readonly observer: Partial<Observer<ReconcileEvent>>;
  /** `start` threw: the definition could not be started. Default: rethrown. */
  readonly onStartError?: (error: unknown) => void;
}

/** A hosted controller; see {@link hostRestartable}. */
export interface RestartableController {
  /** How many incarnations were started so far. */
  readonly incarnation: number;
  /** Starts a fresh incarnation now, after stopping the live one (if any). */
  start(): void;
  /** Unsubscribes the live incarnation (no restart follows). */
  stop(): void;
}

/**
 * Hosts `definition` over `options.state`'s view of the cluster. When a crash fault fires, the incarnation is
 * unsubscribed at once and a fresh one (a new manager: new caches, queues, expectations) starts `restartMs` later.
 *
 * # Guarantees
 * - Nothing of an incarnation survives its crash but what reached the server: its connection delivers and sends
 *   nothing more (see `controllerView`) and its subscription is gone.
 * - A stop cancels a pending restart.
 */
export function hostRestartable(definition: ControllerDefinition, options: RestartableOptions): RestartableController {
  const { cluster, state } = options;
  const { scheduler } = cluster;
  let subscription: Subscription | undefined;
  let restart: Subscription | undefined;
  let incarnation = 0;
  const stop = (): void => {
    restart?.unsubscribe();
    restart = undefined;
    subscription?.unsubscribe();
    subscription = undefined;
  };
  const start = (): void => {
    stop();
    incarnation++;
    const connection = controllerView(
      cluster,
      state,
      (crash) => {
        options.onCrash?.(crash);
        subscription?.unsubscribe();
        subscription = undefined;
        restart = scheduler.schedule(() => {
          options.onRestart?.(incarnation + 1);
          start();
        }, crash.restartMs);
      },
      options.onWrite ?? ((_write, outcome) => outcome),
    );
    let events$: Observable<ReconcileEvent>;
    let context: ControllerContext | undefined;
    try {
      events$ = hostController(
        definition,
        {
          connection,
          scheduler,
          random: options.random(incarnation),
          ...(options.stop$ ? { stop$: options.stop$ } : {}),
          ...(options.onError ? { onError: options.onError } : {}),
        },
        (built) => (context = built),
      );
    } catch (error) {
      if (options.onStartError === undefined) throw error;
      options.onStartError(error);
      return;
    }
    subscription = events$.subscribe(options.observer);
    options.onStarted?.(context);
  };
  return {
    get incarnation() {
      return incarnation;
    },
    start,
    stop,
  };
}
