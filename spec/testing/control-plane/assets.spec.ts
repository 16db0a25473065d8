import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  CONTROL_PLANE_VERSIONS,
  controlPlaneCacheDir,
  resolveControlPlaneAssets,
  rxkubeCacheRoot,
} from '../../../src/testing/control-plane/index.js';

describe('testing/control-plane assets', () => {
  let dir: string;
  const fakeBinaries = (target: string, names = ['kube-apiserver', 'etcd']): string => {
    mkdirSync(target, { recursive: true });
    for (const name of names) {
      writeFileSync(join(target, name), '#!/bin/sh\n');
      chmodSync(join(target, name), 0o755);
    }
    return target;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-assets-spec-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts the cache under ~/.cache/rxkube unless RXKUBE_CACHE_DIR or XDG_CACHE_HOME says otherwise', () => {
    expect(rxkubeCacheRoot({})).to.equal(join(homedir(), '.cache', 'rxkube'));
    expect(rxkubeCacheRoot({ XDG_CACHE_HOME: '/xdg' })).to.equal('/xdg/rxkube');
    expect(rxkubeCacheRoot({ RXKUBE_CACHE_DIR: '/custom', XDG_CACHE_HOME: '/xdg' })).to.equal('/custom');
  });

  it('keys the build directory by both pinned versions', () => {
    expect(controlPlaneCacheDir({ RXKUBE_CACHE_DIR: '/c' })).to.equal(
      `/c/control-plane/${CONTROL_PLANE_VERSIONS.kubernetes}-etcd-${CONTROL_PLANE_VERSIONS.etcd}`,
    );
  });

  it('prefers an explicit assetsDir, then RXKUBE_ASSETS, then KUBEBUILDER_ASSETS, then the cache', () => {
    const option = fakeBinaries(join(dir, 'option'));
    const rxkube = fakeBinaries(join(dir, 'rxkube'));
    const kubebuilder = fakeBinaries(join(dir, 'kubebuilder'));
    const cacheRoot = join(dir, 'cache');
    fakeBinaries(controlPlaneCacheDir({ RXKUBE_CACHE_DIR: cacheRoot }));
    const env = { RXKUBE_ASSETS: rxkube, KUBEBUILDER_ASSETS: kubebuilder, RXKUBE_CACHE_DIR: cacheRoot };

    expect(resolveControlPlaneAssets({ assetsDir: option, env })).to.include({
      dir: option,
      source: 'option',
      etcd: join(option, 'etcd'),
    });
    expect(resolveControlPlaneAssets({ env })).to.include({ dir: rxkube, source: 'RXKUBE_ASSETS' });
    expect(resolveControlPlaneAssets({ env: { ...env, RXKUBE_ASSETS: '' } })).to.include({
      dir: kubebuilder,
      source: 'KUBEBUILDER_ASSETS',
    });
    expect(resolveControlPlaneAssets({ env: { RXKUBE_CACHE_DIR: cacheRoot } })).to.include({
      source: 'cache',
      kubeApiServer: join(controlPlaneCacheDir({ RXKUBE_CACHE_DIR: cacheRoot }), 'kube-apiserver'),
    });
  });

  it('reports a named directory that lacks a binary instead of falling back to the cache', () => {
    const partial = fakeBinaries(join(dir, 'partial'), ['kube-apiserver']);
    const cacheRoot = join(dir, 'cache');
    fakeBinaries(controlPlaneCacheDir({ RXKUBE_CACHE_DIR: cacheRoot }));
    expect(() =>
      resolveControlPlaneAssets({ env: { KUBEBUILDER_ASSETS: partial, RXKUBE_CACHE_DIR: cacheRoot } }),
    ).to.throw(/etcd missing or not executable in .*partial \(from KUBEBUILDER_ASSETS\)/);
  });

  it('tells the user how to build when the cache is empty', () => {
    expect(() => resolveControlPlaneAssets({ env: { RXKUBE_CACHE_DIR: join(dir, 'empty') } })).to.throw(
      /kube-apiserver, etcd missing.*npx rxkube-control-plane build/,
    );
  });

  it('does not accept a binary that is not executable', () => {
    const target = fakeBinaries(join(dir, 'noexec'));
    chmodSync(join(target, 'etcd'), 0o644);
    expect(() => resolveControlPlaneAssets({ assetsDir: target, env: {} })).to.throw(/etcd missing or not executable/);
  });
});
