/**
 * The real control plane for end-to-end tests: kube-apiserver + etcd on loopback, rxkube's envtest.
 * @module
 */
export { startControlPlane } from './control-plane.js';
export type { ControlPlane, ControlPlaneOptions } from './control-plane.js';
export {
  CONTROL_PLANE_VERSIONS,
  CONTROL_PLANE_VERSION_TAG,
  assetsFromEnvironment,
  controlPlaneCacheDir,
  missingBinaries,
  resolveControlPlaneAssets,
  rxkubeCacheRoot,
} from './assets.js';
export type { ControlPlaneAssets } from './assets.js';
export { existingCluster } from './existing.js';
export { buildControlPlane } from './build.js';
