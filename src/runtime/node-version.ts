/**
 * Refuses to load on a Node.js too old for `@kubernetes/client-node` 2.x, with a message that says so, instead of
 * the obscure error its dependencies would throw. Imported first by every entry point, so it runs before them.
 */

/** The oldest Node.js rxkube runs on (`@kubernetes/client-node` 2.x needs it). */
export const MINIMUM_NODE_VERSION = '22.19.0';

/**
 * Whether `version` (`process.versions.node` form, `22.19.0`) is at least {@link MINIMUM_NODE_VERSION}.
 */
export function isSupportedNodeVersion(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [wantMajor = 0, wantMinor = 0] = MINIMUM_NODE_VERSION.split('.').map(Number);
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

if (!isSupportedNodeVersion(process.versions.node)) {
  throw new Error(
    `rxkube needs Node.js >= ${MINIMUM_NODE_VERSION} (its dependency @kubernetes/client-node 2.x does); this is Node.js ` +
      `${process.versions.node}. Upgrade Node.js, or run through the project's npm scripts, which use the pinned Node 24.`,
  );
}
