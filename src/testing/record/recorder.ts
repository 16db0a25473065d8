/**
 * `recorder`: taps a live informer's WatchEvents and a controller's ReconcileEvents into JSON lines.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { asyncScheduler, tap, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { listWatch, type ListWatchOptions } from '../../watch/index.js';
import { recordReconcileEvent, type RecordLine } from './format.js';
import type { Connection, ReconcileEvent, ResourceRef } from 'rxkube';
import type { DeltaSource, WatchEvent } from 'rxkube/extend';

/** Where a recorder writes: a function given one JSON line at a time (no newline), or a Node.js writable stream. */
export type RecordingSink =
  | ((line: string) => void)
  | {
      /**
       * Given one line at a time, with its trailing newline, synchronously as the event passes. Its return value is
       * ignored, so backpressure (`false` from a Node.js stream) is not honoured; a throw errors the tapped stream.
       */
      write(chunk: string): unknown;
    };

/** Options of {@link recorder}. */
export interface RecorderOptions {
  /** Whose `now()` stamps the lines; default `asyncScheduler` (wall time). Times are relative to the recorder's creation. */
  readonly scheduler?: SchedulerLike;
}

/** Taps streams into one recording; see {@link recorder}. */
export interface Recorder {
  /** Records every WatchEvent passing through, as stream `stream`. */
  watchEvents<T extends KubernetesObject>(stream: string): MonoTypeOperatorFunction<WatchEvent<T>>;
  /** Records every ReconcileEvent passing through. */
  reconcileEvents(): MonoTypeOperatorFunction<ReconcileEvent>;
  /**
   * A `DeltaSource` for `informerFactory(connection, { source })`: `listWatch` on `connection` (or the deltas
   * of another source), recorded as stream `apiVersion/kind` (plus `/namespace` for a namespaced watch), which is
   * the name `replay` serves it under.
   */
  source(from: Connection | DeltaSource): DeltaSource;
}

/**
 * A recorder of a live controller: everything tapped goes to `sink` as JSON lines ({@link RecordLine}), in the
 * order it happened, which `replay` feeds back to the controller in virtual time.
 *
 * # Guarantees
 * - The tapped streams are unchanged: values, errors and completion pass through as they came.
 * - One line per event, written synchronously when the event passes, stamped with the scheduler's time since the
 *   recorder was created; WatchEvents keep their objects whole, ReconcileEvents keep their decisions
 *   (see `RecordedReconcileEvent`).
 *
 * # Caveats
 * - A sink that throws makes the tapped stream error: a recording with a hole is worse than a failed run.
 * - Objects are recorded as the informer received them (after its `transform`): secrets stay secrets; record a
 *   metadata-only or transformed watch when the objects must not be kept.
 */
export function recorder(sink: RecordingSink, options: RecorderOptions = {}): Recorder {
  const scheduler = options.scheduler ?? asyncScheduler;
  const origin = scheduler.now();
  const write = typeof sink === 'function' ? sink : (line: string) => void sink.write(`${line}\n`);
  const emit = (line: RecordLine): void => write(JSON.stringify(line));
  const self: Recorder = {
    watchEvents: <T extends KubernetesObject>(stream: string) =>
      tap<WatchEvent<T>>((event) =>
        emit({ t: scheduler.now() - origin, kind: 'watch', stream, event: event as WatchEvent<KubernetesObject> }),
      ),
    reconcileEvents: () =>
      tap<ReconcileEvent>((event) =>
        emit({ t: scheduler.now() - origin, kind: 'reconcile', event: recordReconcileEvent(event) }),
      ),
    source: (from) =>
      (<T extends KubernetesObject>(resource: ResourceRef, watchOptions: ListWatchOptions<T>) => {
        const stream = streamName(resource, watchOptions.namespace);
        const record = (event: WatchEvent<T>): void =>
          emit({ t: scheduler.now() - origin, kind: 'watch', stream, event: event as WatchEvent<KubernetesObject> });
        // A source may deliver a batch (one relist, one network chunk) as an array: each event gets its own line.
        return (
          typeof from === 'function' ? from<T>(resource, watchOptions) : listWatch<T>(from, resource, watchOptions)
        ).pipe(
          tap((delivered: WatchEvent<T> | readonly WatchEvent<T>[]) => {
            if (isBatch(delivered)) for (const event of delivered) record(event);
            else record(delivered);
          }),
        );
      }) as DeltaSource,
  };
  return self;
}

/** The stream name of a watch: `apiVersion/kind`, plus `/namespace` when namespaced. */
export function streamName(
  resource: { readonly apiVersion: string; readonly kind: string },
  namespace?: string,
): string {
  return `${resource.apiVersion}/${resource.kind}${namespace ? `/${namespace}` : ''}`;
}

function isBatch<T extends KubernetesObject>(
  delivered: WatchEvent<T> | readonly WatchEvent<T>[],
): delivered is readonly WatchEvent<T>[] {
  return Array.isArray(delivered);
}
