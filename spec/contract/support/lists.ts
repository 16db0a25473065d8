/** Field-by-field checks of list answers: each item against what a GET of it returns. */
import { expect } from 'chai';
import type { ContractSession } from './target.js';

/** Options of {@link expectItemsAsRead}. */
export interface ItemsAsReadOptions {
  /** The resource (plural) the list is of, for each item's path. */
  readonly plural: string;
  /** A custom resource: its items keep `kind` and `apiVersion` (default false, a built-in kind). */
  readonly custom?: boolean;
}

/** The path of one listed object: the list's group/version, the item's namespace (if any) and name. */
function itemPath(apiVersion: string, plural: string, item: any): string {
  const root = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const namespace: string | undefined = item?.metadata?.namespace;
  return `${root}${namespace === undefined ? '' : `/namespaces/${namespace}`}/${plural}/${item?.metadata?.name}`;
}

/**
 * Asserts that every item of `list` (a parsed list answer) equals, field by field, the object a GET of it returns
 * now, with kube-apiserver's one difference: the items of a built-in kind's list carry no `kind` and `apiVersion`
 * (kubernetes#3030), those of a custom resource keep them. Returns the items' names in list order.
 *
 * # Caveats
 * - For lists whose objects do not change until the check is done (a later write shows as a difference).
 */
export async function expectItemsAsRead(
  session: ContractSession,
  list: any,
  options: ItemsAsReadOptions,
): Promise<string[]> {
  expect(list?.items, 'the list answer has an items array').to.be.an('array');
  for (const item of list.items as any[]) {
    const path = itemPath(list.apiVersion, options.plural, item);
    const read = await session.raw('GET', path);
    expect(read.status, `GET ${path}: ${read.text}`).to.equal(200);
    const { kind: _kind, apiVersion: _apiVersion, ...withoutTypeMeta } = read.json;
    expect(item, `listed ${path}`).to.deep.equal(options.custom === true ? read.json : withoutTypeMeta);
  }
  return (list.items as any[]).map((item) => item.metadata.name as string);
}
