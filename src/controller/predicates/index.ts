/**
 * Predicates: filters over informer events that are values (`p.test(event)`) and operators (`events$.pipe(p)`),
 * with the combinators `and`, `or` and `not`.
 */
export type { EventPredicate, EventTest, PredicateLike, PredicateOptions, ErrorHandler } from './types.js';
export { PredicateError } from './types.js';
export { predicate } from './predicate.js';
export { reportError } from './report.js';
export { generationChanged } from './generation-changed.js';
export { resourceVersionChanged } from './resource-version-changed.js';
export { labelsChanged } from './labels-changed.js';
export { annotationsChanged } from './annotations-changed.js';
export { eventType } from './event-type.js';
export { and } from './and.js';
export { or } from './or.js';
export { not } from './not.js';
export * as predicates from './predicates-namespace.js';
