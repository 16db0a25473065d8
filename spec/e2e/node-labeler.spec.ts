/**
 * The node labeler against a real kube-apiserver: the scenarios the in-memory server also runs
 * (examples/node-labeler/scenarios.ts), here with kube-apiserver's own validation, resourceVersions, 422 for a
 * failed JSON Patch test, and events.k8s.io; standalone, and as the manager's controller (with leader election
 * on a real Lease).
 */
import { nodeLabelerScenarios } from '../../examples/node-labeler/scenarios.js';
import { e2eCluster, isE2eRun, type E2eCluster } from './support/cluster.js';

if (isE2eRun()) {
  describe('the node-labeler example against a real kube-apiserver', function () {
    this.timeout(120000);
    let cluster: E2eCluster;

    before(async () => {
      cluster = await e2eCluster();
    });

    nodeLabelerScenarios(() => cluster.handle.kubeConfig);

    describe('under the manager', () => {
      nodeLabelerScenarios(() => cluster.handle.kubeConfig, 'manager');
    });
  });
}
