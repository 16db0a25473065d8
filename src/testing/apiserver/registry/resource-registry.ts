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
  private flat: readonly ResourceInfo[] | undefined;
  /** `group/version/plural` → resource; rebuilt with `flat`, since every request resolves through `find`. */
  private index: Map<string, ResourceInfo> | undefined;

  constructor() {
    this.byOwner.set('builtin', [...builtinResources]);
  }

  /** Registers (or replaces) the resources contributed by `owner` (a CRD name). */
  set(owner: string, resources: readonly ResourceInfo[]): void {
    if (resources.length === 0) this.byOwner.delete(owner);
    else this.byOwner.set(owner, [...resources]);
    this.flat = undefined;
    this.index = undefined;
  }

  /** Removes what `owner` registered. */
  delete(owner: string): void {
    this.byOwner.delete(owner);
    this.flat = undefined;
    this.index = undefined;
  }

  /** Every served resource. */
  all(): readonly ResourceInfo[] {
    // Rebuilt only when the set changes: every request resolves its resource through here.
    this.flat ??= [...this.byOwner.values()].flat();
    return this.flat;
  }

  /** Finds a resource served at `group/version` with `plural`. */
  find(group: string, version: string, plural: string): ResourceInfo | undefined {
    if (this.index === undefined) {
      const index = new Map<string, ResourceInfo>();
      // First registration wins, as the linear search this replaces did.
      for (const r of this.all())
        for (const v of r.versions)
          if (!index.has(`${r.group}/${v}/${r.plural}`)) index.set(`${r.group}/${v}/${r.plural}`, r);
      this.index = index;
    }
    return this.index.get(`${group}/${version}/${plural}`);
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
