/**
 * The one name a controller author needs from the transport layer: where the cluster is. Its own file, because it
 * is exported from `rxkube` and the transport from `rxkube/extend`.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Transport } from 'rxkube/extend';

/**
 * Where rxkube reaches a cluster: a client-node `KubeConfig` (auth, TLS and proxies from client-node, over HTTP) or
 * any `Transport` (`rxkube/extend`) (a scripted one in tests, an in-process cluster). Every entry point that talks to a cluster
 * accepts one.
 */
export type Connection = KubeConfig | Transport;
