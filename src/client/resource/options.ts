/**
 * The options of the resource client and of each of its calls, as kube-apiserver's query parameters and
 * `DeleteOptions` name them.
 */
import type { ResourceClient } from './client.js';

/**
 * client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart, factor 1, jitter 0.1, so the delays are 10–11 ms.
 */
export const DEFAULT_RETRY: ResourceClient.RetryPolicy = Object.freeze({
  steps: 5,
  durationMs: 10,
  factor: 1,
  jitter: 0.1,
});

/** What every call accepts: the `signal` of each call's options. */
export type CallOptions = Pick<ResourceClient.GetOptions, 'signal'>;
/** How strictly the server treats unknown or duplicate fields in a write (`fieldValidation`). */
export type FieldValidation = NonNullable<ResourceClient.WriteOptions['fieldValidation']>;
/** Whether and how dependents are garbage-collected with the object (`propagationPolicy`). */
export type PropagationPolicy = NonNullable<ResourceClient.DeleteOptions['propagationPolicy']>;
