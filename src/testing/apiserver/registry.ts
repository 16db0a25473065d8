/**
 * The set of resources the server serves right now: built-ins plus whatever established CRDs add.
 * @module
 */
import { builtinResources, groupVersion, type ResourceInfo } from './resource.js';

/** A group as discovery shows it: name, served versions, preferred version. */
export interface ServedGroup {
  readonly name: string;
  readonly versions: readonly string[];
  readonly preferred: string;
}

/**
 * Resource lookup by URL parts, and the source of discovery documents.
 *
 * # Guarantees
 * - Groups keep their registration order (built-ins first, then CRD groups in creation order), like discovery.
 */
export class ResourceRegistry {
  private readonly byOwner = new Map<string, ResourceInfo[]>();

  constructor() {
    this.byOwner.set('builtin', [...builtinResources]);
  }

  /** Registers (or replaces) the resources contributed by `owner` (a CRD name). */
  set(owner: string, resources: readonly ResourceInfo[]): void {
    if (resources.length === 0) this.byOwner.delete(owner);
    else this.byOwner.set(owner, [...resources]);
  }

  /** Removes what `owner` registered. */
  delete(owner: string): void {
    this.byOwner.delete(owner);
  }

  /** Every served resource. */
  all(): ResourceInfo[] {
    return [...this.byOwner.values()].flat();
  }

  /** Finds a resource served at `group/version` with `plural`. */
  find(group: string, version: string, plural: string): ResourceInfo | undefined {
    return this.all().find((r) => r.group === group && r.plural === plural && r.versions.includes(version));
  }

  /** Resources served at one group/version, in registration order. */
  inGroupVersion(group: string, version: string): ResourceInfo[] {
    return this.all().filter((r) => r.group === group && r.versions.includes(version));
  }

  /** The named API groups (not the legacy core group), for `/apis`. */
  groups(): ServedGroup[] {
    const groups = new Map<string, string[]>();
    for (const r of this.all()) {
      if (r.group === '') continue;
      const versions = groups.get(r.group) ?? [];
      for (const v of r.versions) if (!versions.includes(v)) versions.push(v);
      groups.set(r.group, versions);
    }
    return [...groups].map(([name, versions]) => ({ name, versions, preferred: versions[0]! }));
  }

  /** True when `group/version` is served at all (used for the precise 404 on unknown paths). */
  servesGroupVersion(group: string, version: string): boolean {
    return this.inGroupVersion(group, version).length > 0;
  }
}

/** `apps/v1` string for a resource at a version; re-exported here for the handlers' convenience. */
export { groupVersion };
