/**
 * When a cache shows a write of the controller: the condition `readYourWrites` waits for.
 */
import type { ownWrites } from 'rxkube';
import { compareResourceVersions } from '../../client/index.js';

/**
 * Whether `source`'s cache shows `write`.
 *
 * - A write: the cache has reached its resourceVersion (`compareResourceVersions(store, written) >= 0`): one watch
 *   delivers its events in resourceVersion order, so the cache then holds the write, or what followed it.
 * - A delete: the object is gone from the cache, is another object (another uid), or shows its deletion
 *   (`deletionTimestamp`) at the answered resourceVersion or later.
 * - A write whose resourceVersion does not compare (an opaque one, from a server that is not etcd-backed) is not
 *   waited for: nothing can be assumed.
 */
export function cacheShows(source: ownWrites.ReadSource, write: ownWrites.OwnWrite): boolean {
  const store = source.informer.current();
  if (write.deleted) {
    const cached = store.get(write.key);
    if (cached === undefined) return true;
    if (write.uid !== undefined && cached.metadata?.uid !== undefined && cached.metadata.uid !== write.uid) return true;
    if (!write.deleting || cached.metadata?.deletionTimestamp == null || write.resourceVersion === undefined)
      return false;
    return (compareResourceVersions(cached.metadata.resourceVersion, write.resourceVersion) ?? -1) >= 0;
  }
  const written = write.resourceVersion;
  if (written === undefined || compareResourceVersions(written, written) === undefined) return true;
  if (store.resourceVersion === '') return false;
  const order = compareResourceVersions(store.resourceVersion, written);
  return order === undefined || order >= 0;
}
