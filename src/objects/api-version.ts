/**
 * `apiVersion` strings: `v1` for the core group, `group/version` for every other.
 */

/**
 * Splits `apps/v1` into group and version; `v1` is the core group (`''`).
 *
 * # Caveats
 * Throws on an empty or malformed apiVersion (`a/b/c`, `/v1`), naming it.
 */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const parts = typeof apiVersion === 'string' ? apiVersion.split('/') : [];
  if (parts.length === 1 && parts[0] !== '') return { group: '', version: parts[0]! };
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') return { group: parts[0]!, version: parts[1]! };
  throw new Error(`malformed apiVersion ${JSON.stringify(apiVersion)}: expected "v1" or "group/version"`);
}

/**
 * The group of an `apiVersion` written by someone else (an owner reference, a stored object), without judging it:
 * the text before the first `/`, or `''` when there is none. Use {@link splitApiVersion} to validate one we were
 * given as an option.
 */
export function groupOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash >= 0 ? apiVersion.slice(0, slash) : '';
}

/** The `apiVersion` of a group and version: `v1` for the core group, `group/version` otherwise. */
export function joinApiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/**
 * Whether `apiVersion` and `kind` are those of a metadata-only view (`PartialObjectMetadata` of `meta.k8s.io`), as a
 * `metadataOnly` informer's objects carry them: they say what the view is, not what the object is, so they cannot
 * name it in an owner reference or an Event.
 */
export function isPartialObjectMetadata(apiVersion: string | undefined, kind: string | undefined): boolean {
  return (
    kind === 'PartialObjectMetadata' && apiVersion !== undefined && groupOfApiVersion(apiVersion) === 'meta.k8s.io'
  );
}
