/**
 * Predicates: filters over informer events that are values (`p.test(event)`) and operators (`events$.pipe(p)`),
 * with the combinators `and`, `or` and `not`.
 */
export type { EventPredicate, EventTest, PredicateLike, PredicateOptions, ErrorHandler } from './types.js';
export { PredicateError } from './types.js';
export { predicate } from './predicate.js';
export { reportError } from './report.js';
export { generationChanged } from './generationChanged.js';
export { resourceVersionChanged } from './resourceVersionChanged.js';
export { labelsChanged } from './labelsChanged.js';
export { annotationsChanged } from './annotationsChanged.js';
export { eventType } from './eventType.js';
export { and } from './and.js';
export { or } from './or.js';
export { not } from './not.js';
export * as predicates from './predicates-namespace.js';
