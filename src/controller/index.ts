/**
 * Controller building blocks: the coalescing, rate-limited reconcile operator (`reconcile/`) and its rate limiters.
 * `builder/`, `context/`, `predicates/` and `triggers/` have their own indexes. The entry points pick their names
 * from here one by one.
 * @packageDocumentation
 */
export * from './reconcile/index.js';
