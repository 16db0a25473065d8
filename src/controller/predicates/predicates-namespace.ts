/**
 * Predicates over informer events, as controller-runtime's `predicate` package has them: each is a value
 * (`p.test(event)`) and a filtering operator (`events$.pipe(p)`). `predicates.generationChanged()`,
 * `.labelsChanged()`, `.annotationsChanged()`, `.resourceVersionChanged()` and `.eventType(...)` are built in,
 * `predicates.from(test)` makes one of any test, and `predicates.and`, `.or` and `.not` combine them.
 *
 * @example
 * ```ts
 * import { predicates, toKeys } from 'rxkube';
 *
 * informer.events$.pipe(predicates.or(predicates.generationChanged(), predicates.labelsChanged()), toKeys());
 * ```
 * @packageDocumentation
 */
export { predicate as from } from './predicate.js';
export { and } from './and.js';
export { or } from './or.js';
export { not } from './not.js';
export { eventType } from './event-type.js';
export { generationChanged } from './generation-changed.js';
export { labelsChanged } from './labels-changed.js';
export { annotationsChanged } from './annotations-changed.js';
export { resourceVersionChanged } from './resource-version-changed.js';
export { PredicateError } from './types.js';
export type { EventPredicate, EventTest, PredicateLike, PredicateOptions } from './types.js';
