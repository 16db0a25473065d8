import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { isSupportedNodeVersion, MINIMUM_NODE_VERSION } from '../../src/runtime/node-version.js';

describe('the Node.js version check', () => {
  it('accepts Node.js from 22.19 on and refuses anything older', () => {
    expect(MINIMUM_NODE_VERSION).to.equal('22.19.0');
    expect(['22.19.0', '22.20.1', '23.0.0', '24.21.0'].map(isSupportedNodeVersion)).to.deep.equal([
      true,
      true,
      true,
      true,
    ]);
    expect(['20.20.2', '22.18.9', '18.0.0'].map(isSupportedNodeVersion)).to.deep.equal([false, false, false]);
  });

  for (const entry of ['src/index.ts', 'src/testing/index.ts', 'src/testing/cli/test-cluster.ts']) {
    it(`stops ${entry} on Node.js 20 with a message that names the version needed, before any dependency loads`, function () {
      this.timeout(30_000);
      // Pretend to be Node 20 before anything else loads; client-node's own failure on a real Node 20 is an
      // unrelated TypeError deep inside undici, which is what users saw before this check.
      const pretend = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.20.2'})`;
      const run = spawnSync(process.execPath, ['--import', pretend, '--import', 'tsx', entry], {
        encoding: 'utf8',
        timeout: 25_000,
      });
      expect(run.status).to.not.equal(0);
      expect(run.stderr).to.contain(
        'rxkube needs Node.js >= 22.19.0 (its dependency @kubernetes/client-node 2.x does); this is Node.js 20.20.2',
      );
    });
  }
});
