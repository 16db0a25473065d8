/**
 * `filterView`: the objects of one informer or view that pass a test.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { projectedView } from './map-view.js';
import type { View, ViewInput, ViewOptions } from './types.js';

/**
 * A derived store with the source objects for which `test` is true, the same objects under the same keys:
 * `filterView(pods, (pod) => pod.status?.phase === 'Pending')`.
 *
 * # Guarantees
 * - Everything `views.map` guarantees (this is `mapView` with a projection that returns the object or
 *   nothing): the view holds exactly the source objects that pass, as a from-scratch filter of the source snapshot
 *   it reflects would; `test` runs once per changed object.
 * - A test that throws is reported on `problems$` with the key, and that object is left out.
 *
 * # Caveats
 * - `test` must depend on the object alone: it is not called again when anything else changes.
 */
export function filterView<T extends KubernetesObject>(
  source: ViewInput<T>,
  test: (object: T, key: string) => boolean,
  options: ViewOptions<T> = {},
): View<T> {
  if (typeof test !== 'function')
    throw new TypeError('filterView: the test must be a function (object, key) => boolean');
  return projectedView<T, T>(
    'filterView',
    'the test',
    source,
    (object, key) => (test(object, key) ? object : undefined),
    options,
  );
}
