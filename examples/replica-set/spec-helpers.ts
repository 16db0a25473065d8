/**
 * The replica-set example's planted bug, a spec fixture (the example itself never uses it): the stale-state class
 * of Sieve (OSDI '22), a controller that creates Pods from a stale count.
 * @module
 */
import type { ReplicaSetControllerOptions } from './options.js';

/**
 * The planted bug, as options of the example's controller: expectations that expire at once are no expectations.
 * Read-your-own-writes still makes a sync wait until the Pod cache shows the last sync's creations, but only for
 * its bound (5 s); past it, the sync counts the PodSet's Pods from a cache that does not show its own creations yet,
 * and creates them again. kube-controller-manager keeps expectations beside read-your-own-writes for exactly that
 * case: a cache that lags longer than the bound.
 *
 * Every marble spec of the example's behaviour passes with it (`replica-set.marbles.spec.ts` runs them against it):
 * their caches lag by milliseconds. A lagging apiserver (`staleView`) lags by seconds.
 */
export const STALE_COUNT_BUG: ReplicaSetControllerOptions = Object.freeze({ expectationsTimeoutMs: Number.MIN_VALUE });
