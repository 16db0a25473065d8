import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { NEVER } from 'rxjs';
import type { ControllerContext, ManagerOptions } from '../../src/index.js';
import { informerFactory } from '../../src/index.js';
import { Registry } from 'prom-client';
import { CACHE_DIGEST_METRIC, CACHE_OBJECTS_METRIC, cacheDigest, withCacheDigests } from './cache-digest.js';

describe('cacheDigest and withCacheDigests: informer caches, digested for the soak', () => {
  it('digests the same keys at the same resourceVersions alike in any order, and anything else differently', () => {
    const a = { key: 'ns/a', resourceVersion: '10' };
    const b = { key: 'ns/b', resourceVersion: '11' };
    expect(cacheDigest([a, b])).to.deep.equal(cacheDigest([b, a]));
    expect(cacheDigest([a, b]).objects).to.equal(2);
    expect(cacheDigest([a, b]).digest).to.not.equal(cacheDigest([a, { ...b, resourceVersion: '12' }]).digest);
    expect(cacheDigest([a, b]).digest).to.not.equal(cacheDigest([a]).digest);
    expect(Number.isSafeInteger(cacheDigest([a]).digest)).to.equal(true);
  });

  it('serves the count and digest of every informer the controllers declare, by kind and namespace, in the registry', async () => {
    const registry = new Registry();
    const options: ManagerOptions = {
      connection: new KubeConfig(),
      name: 'digest',
      metrics: { registry },
      controllers: [
        {
          name: 'pods',
          start: (context) => {
            context.informers.for({ apiVersion: 'v1', kind: 'Pod' }, { namespace: 'ns' });
            return NEVER;
          },
        },
      ],
    };
    const wrapped = withCacheDigests(options);
    const factory = informerFactory(new KubeConfig(), { source: () => NEVER });
    wrapped.controllers[0]!.start({ informers: factory } as unknown as ControllerContext);
    const text = await registry.metrics();
    const empty = cacheDigest([]);
    expect(text).to.contain(`${CACHE_OBJECTS_METRIC}{kind="Pod",namespace="ns"} 0`);
    expect(text).to.contain(`${CACHE_DIGEST_METRIC}{kind="Pod",namespace="ns"} ${empty.digest}`);
    const off: ManagerOptions = { ...options, metrics: false };
    expect(withCacheDigests(off), 'metrics off: unchanged').to.equal(off);
  });
});
