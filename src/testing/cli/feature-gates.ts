/**
 * `--feature-gates` as kube-apiserver spells it, for the in-memory server's command line.
 * @module
 */
import type { FeatureGates } from '../apiserver/index.js';

/**
 * Parses `Gate=true,Other=false` into {@link FeatureGates}.
 *
 * # Guarantees
 * - A pair without `=`, or a value other than `true`/`false`, is an error naming the pair, worded like the real
 *   flag's; unknown gate names are left to the server core, which refuses them by name.
 */
export function parseFeatureGates(text: string): FeatureGates {
  const gates: Record<string, boolean> = {};
  for (const pair of text.split(',')) {
    const trimmed = pair.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    if (eq < 0)
      throw new Error(`invalid argument "${text}" for "--feature-gates" flag: missing bool value for ${trimmed}`);
    const value = trimmed.slice(eq + 1).trim();
    if (value !== 'true' && value !== 'false')
      throw new Error(
        `invalid argument "${text}" for "--feature-gates" flag: invalid value of ${trimmed}, want true or false`,
      );
    gates[trimmed.slice(0, eq).trim()] = value === 'true';
  }
  return gates;
}
