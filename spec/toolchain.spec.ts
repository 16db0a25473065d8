import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { of, lastValueFrom } from 'rxjs';
import { produce } from 'immer';

describe('the toolchain', () => {
  it('runs specs on node 22.19 or newer, as the package engines demand', () => {
    const [major, minor] = process.versions.node.split('.').map(Number);
    expect(major! > 22 || (major === 22 && minor! >= 19)).to.equal(true);
  });

  it('loads client-node, rxjs and immer as ES modules', async () => {
    expect(new KubeConfig()).to.be.instanceOf(KubeConfig);
    expect(await lastValueFrom(of(1))).to.equal(1);
    expect(
      produce({ a: 1 }, (d) => {
        d.a = 2;
      }),
    ).to.deep.equal({ a: 2 });
  });
});
