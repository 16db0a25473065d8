/**
 * When an informer event only echoes a write of the controller itself: the rule `ignoreOwnWrites` filters by.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { InformerEvent, ownWrites, ResourceRef } from 'rxkube';

/**
 * The write of `writes` (answered after `since`) that `event` only echoes, if there is one. An event echoes a write
 * when it carries exactly the state that write produced, changed from exactly the state it was applied to:
 * - `added`: the object at the resourceVersion a create of ours was answered with;
 * - `updated`: the object at the resourceVersion a write of ours was answered with, and the previous object at the
 *   resourceVersion that write was conditioned on (a `mutate`, or any write that names the version it expects).
 *
 * A resourceVersion names one state of one object: the first condition says nobody wrote after us; the second that
 * nobody wrote between the state this cache showed and ours (a relist can fold such a write into one `updated`).
 * Deletes, resyncs and writes that were not conditioned never match.
 */
export function echoOf<T extends KubernetesObject>(
  writes: ownWrites.OwnWrites,
  resource: ResourceRef,
  event: InformerEvent<T>,
  since: number,
): ownWrites.OwnWrite | undefined {
  if (writes.sequence <= since || (event.type !== 'added' && event.type !== 'updated')) return undefined;
  const version = event.object.metadata?.resourceVersion;
  if (typeof version !== 'string' || version === '') return undefined;
  const written = writes.writesTo(resource, event.key);
  for (let i = written.length - 1; i >= 0; i--) {
    const write = written[i]!;
    if (write.seq <= since || write.deleted || write.resourceVersion !== version) continue;
    if (event.type === 'added') return write.base === null ? write : undefined;
    return typeof write.base === 'string' && write.base === event.old.metadata?.resourceVersion ? write : undefined;
  }
  return undefined;
}
