/**
 * rxkube: Kubernetes controllers as RxJS pipelines.
 *
 * This module holds the public exports only; each concept lives in its own folder under `src/`.
 * @packageDocumentation
 */
export {};
