/**
 * The request objects the operator hands to a reconcile function: one with the looked-up object, one without, and
 * the lazily created `AbortSignal` they share.
 * Internal; the public shapes are `ReconcileRequest` and `ReconcileKeyRequest` in `types.ts`.
 */
import type { ReconcileKeyRequest, ReconcileRequest } from './types.js';

/**
 * Fields and the signal every request has. The `AbortController` is created only when `signal` is read, so a
 * synchronous reconcile that never looks at it allocates none.
 */
abstract class RequestBase {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  constructor(
    readonly key: string,
    readonly reasons: readonly string[],
    readonly attempt: number,
  ) {}

  /** Aborted on timeout, on drain timeout, on unsubscribe and when the gate closes; the reason says which. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the request's signal once; later calls do nothing. */
  static abort(request: RequestBase, reason: unknown): void {
    if (request.#aborted) return;
    request.#aborted = true;
    request.#reason = reason;
    request.#controller?.abort(reason);
  }
}

/** A request of an operator given a `lookup`: `object` is the latest state, `undefined` when deleted. */
export class LookupRequest<T> extends RequestBase implements ReconcileRequest<T> {
  constructor(
    key: string,
    readonly object: T | undefined,
    reasons: readonly string[],
    attempt: number,
  ) {
    super(key, reasons, attempt);
  }
}

/**
 * A request of an operator without a `lookup`. Reading `object` throws: `undefined` would look exactly like a
 * deleted object, and a reconcile that mistook "no lookup" for "deleted" could delete what still exists.
 */
export class KeyOnlyRequest extends RequestBase implements ReconcileKeyRequest {
  get object(): never {
    throw new TypeError(
      `reconcile: the request for ${this.key} has no object because no lookup was configured (it does not mean the object `
      + 'was deleted); pass lookup: (key) => informer.current().get(key) to read the latest state',
    );
  }
}

/** One of the two request kinds. */
export type AnyRequest = LookupRequest<unknown> | KeyOnlyRequest;

/** Aborts a request's signal with `reason` (an error saying why). */
export function abortRequest(request: AnyRequest, reason: unknown): void {
  RequestBase.abort(request, reason);
}
