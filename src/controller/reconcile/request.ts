/**
 * The request objects the operator hands to a reconcile function: one with the looked-up object, one without, and
 * the lazily created `AbortSignal` they share.
 * Internal; the public shapes are `ReconcileRequest` and `ReconcileKeyRequest` in `types.ts`.
 */
import type { ReconcileKeyRequest, ReconcileRequest } from './types.js';

/** Abort state of a request, created only when its signal is read or it is aborted. */
interface AbortSlot {
  controller: AbortController | undefined;
  aborted: boolean;
  reason: unknown;
}

/**
 * Fields and the signal every request has. Nothing about aborting is allocated until `signal` is read or the request
 * is aborted, so a synchronous reconcile that never looks at it costs one object with its public fields and one
 * empty private slot (the operator's hot path creates one request per run).
 */
abstract class RequestBase {
  #abort: AbortSlot | undefined = undefined;

  constructor(
    readonly key: string,
    readonly reasons: readonly string[],
    readonly attempt: number,
    readonly priority: number,
  ) {}

  /** Aborted on timeout, on drain timeout, on unsubscribe and when the gate closes; the reason says which. */
  get signal(): AbortSignal {
    const slot = (this.#abort ??= { controller: undefined, aborted: false, reason: undefined });
    if (slot.controller === undefined) {
      slot.controller = new AbortController();
      if (slot.aborted) slot.controller.abort(slot.reason);
    }
    return slot.controller.signal;
  }

  /** Aborts the request's signal once; later calls do nothing. */
  static abort(request: RequestBase, reason: unknown): void {
    const slot = (request.#abort ??= { controller: undefined, aborted: false, reason: undefined });
    if (slot.aborted) return;
    slot.aborted = true;
    slot.reason = reason;
    slot.controller?.abort(reason);
  }
}

/** A request of an operator given a `lookup`: `object` is the latest state, `undefined` when deleted. */
export class LookupRequest<T> extends RequestBase implements ReconcileRequest<T> {
  constructor(
    key: string,
    readonly object: T | undefined,
    reasons: readonly string[],
    attempt: number,
    priority: number,
  ) {
    super(key, reasons, attempt, priority);
  }
}

/**
 * A request of an operator without a `lookup`. Reading `object` throws: `undefined` would look exactly like a
 * deleted object, and a reconcile that mistook "no lookup" for "deleted" could delete what still exists.
 */
export class KeyOnlyRequest extends RequestBase implements ReconcileKeyRequest {
  get object(): never {
    throw new TypeError(
      `reconcile: the request for ${this.key} has no object because no lookup was configured (it does not mean the object ` +
        'was deleted); pass lookup: (key) => informer.current().get(key) to read the latest state',
    );
  }
}

/** One of the two request kinds. */
export type AnyRequest = LookupRequest<unknown> | KeyOnlyRequest;

/** Aborts a request's signal with `reason` (an error saying why). */
export function abortRequest(request: AnyRequest, reason: unknown): void {
  RequestBase.abort(request, reason);
}
