/**
 * Root hooks for `npm run test:e2e` (loaded through `.mocharc.e2e.json` `require`): marks the run as e2e and stops
 * the shared control plane after the last suite, pass or fail.
 */
import { E2E_RUN, stopE2eCluster } from './cluster.js';

(globalThis as Record<symbol, unknown>)[E2E_RUN] = true;

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopE2eCluster();
  },
};
