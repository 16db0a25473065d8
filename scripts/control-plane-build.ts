/**
 * `npm run control-plane:build`: builds kube-apiserver and etcd into rxkube's cache, or does nothing when they are
 * there or RXKUBE_ASSETS / KUBEBUILDER_ASSETS name prebuilt ones. The same as `npx rxkube-control-plane build`.
 */
import { buildControlPlane } from '../src/testing/control-plane/index.js';

process.exitCode = await buildControlPlane();
