/**
 * Marble helpers: watch deltas and informer events from marble strings, fake informers, and marble assertions over
 * reconcile events.
 * @module
 */
export { watchEvent, watchMarbles, marbleSource, type MarbleDelta, type MarbleHelpers } from './watch-events.js';
export { fakeInformer, informerEventMarbles } from './fake-informer.js';
export {
  expectReconciles,
  reconcileLetter,
  RECONCILE_LETTERS,
  type ExpectReconcilesOptions,
  type ReconcileEventPattern,
  type ReconcileExpectation,
} from './expect-reconciles.js';
