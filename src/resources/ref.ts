/**
 * How rxkube names a resource (exported from `rxkube`; discovery, which resolves it, from `rxkube/extend`).
 */

/**
 * Names a Kubernetes resource the way manifests do: by `apiVersion` and `kind`.
 *
 * The plural and the scope are resolved through discovery (cached per KubeConfig), with a built-in table for the
 * core types, so callers never spell `pods` or `deployments` themselves.
 */
export interface ResourceRef {
  /** `v1` for the core group, `group/version` otherwise, e.g. `apps/v1`. */
  readonly apiVersion: string;
  /** The kind, e.g. `Pod`. */
  readonly kind: string;
}
