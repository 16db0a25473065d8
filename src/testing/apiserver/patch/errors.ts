/** The error every PATCH algorithm throws, shaped like the Status kube-apiserver answers with. */

/**
 * A rejected patch, carrying the HTTP status, Status `reason` and `message` kube-apiserver would send.
 *
 * # Guarantees
 * - `status`/`reason` pairs are 400/`BadRequest` (the patch document itself cannot be decoded), 409/`Conflict`
 *   and 422/`Invalid` (the patch is well-formed but cannot be applied to this object).
 * - `detail`, when present, is the underlying library text (e.g. evanphx/json-patch's
 *   `testing value /a failed: test failed`). kube-apiserver hides it for JSON patch (its 422 body has only the
 *   generic message and `details: {}`), so put it in `details.causes` only if you want more than the real server.
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';
  constructor(
    message: string,
    readonly status: 400 | 409 | 422,
    readonly reason: 'BadRequest' | 'Conflict' | 'Invalid',
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** `NewGenericServerResponse(422, ...)`'s fixed message, what the API server says for an unappliable JSON patch. */
export const GENERIC_422_MESSAGE = 'the server rejected our request due to an error in our request';

/** 400 BadRequest with `message` verbatim. */
export const badRequest = (message: string): PatchError => new PatchError(message, 400, 'BadRequest');

/** 422 Invalid. */
export const invalid = (message: string, detail?: string): PatchError =>
  new PatchError(message, 422, 'Invalid', detail);
