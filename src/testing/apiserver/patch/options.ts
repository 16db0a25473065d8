/** Request options that change how kube-apiserver decodes a patch body. */

/**
 * The `fieldValidation` query parameter of a PATCH. kube-apiserver treats an absent value as `Warn`, and with
 * `Warn`/`Strict` it first strict-decodes JSON and merge patches (`kjson.UnmarshalStrict`), which changes the 400
 * message for a body of the wrong shape (e.g. `error decoding patch: json: cannot unmarshal object into Go value
 * of type []handlers.jsonPatchOp`). Unknown-field warnings themselves are the API server's business.
 */
export interface PatchDecodeOptions {
  readonly fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

/** True unless the caller asked for `Ignore`: the strict pre-decode runs by default, as on a real server. */
export function strictDecode(options: PatchDecodeOptions | undefined): boolean {
  return (options?.fieldValidation ?? 'Warn') !== 'Ignore';
}
