/**
 * `FieldSetBuilder`: a field set built from the paths a typed walk visits.
 * @module
 */
import { FieldSet } from './fieldset.js';
import type { Path, PathElement } from './path.js';

/**
 * Builds a set from the paths of a depth-first walk: each insert descends only below the part of its path that the
 * previous insert already reached, instead of searching every level from the root.
 *
 * # Guarantees
 * - `set` ends up as if every path had been inserted into it with `FieldSet.insert`, in any order.
 *
 * # Caveats
 * - The walk must keep the element objects of its current path as they are while it is below them (push and pop);
 *   a prefix is recognised by those objects' identity.
 */
export class FieldSetBuilder {
  /** `nodes[i]` is the node of the first `i` elements of `via`, for `i <= depth`; entries beyond are stale. */
  private readonly nodes: FieldSet[];
  private readonly via: PathElement[] = [];
  private depth = 0;

  constructor(readonly set: FieldSet = new FieldSet()) {
    this.nodes = [set];
  }

  /** `set.insert(path)`. */
  insert(path: Path): void {
    if (path.length === 0) return;
    this.nodeAt(path, path.length - 1).insertMember(path[path.length - 1]!);
  }

  /**
   * The node of the first `length` elements of `path`, created as needed (building only: the caller adds a member
   * to it, so it is never left empty).
   */
  nodeAt(path: Path, length: number): FieldSet {
    const reached = Math.min(this.depth, length);
    let depth = 0;
    while (depth < reached && this.via[depth] === path[depth]) depth++;
    let node = this.nodes[depth]!;
    for (; depth < length; depth++) {
      node = node.descend(path[depth]!);
      this.via[depth] = path[depth]!;
      this.nodes[depth + 1] = node;
    }
    this.depth = depth;
    return node;
  }
}
