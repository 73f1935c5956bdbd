/**
 * XINFO STREAM's `radix-tree-nodes`: how many nodes Redis' rax holds for the stream's node keys
 * (each a 16-byte big-endian master id). Redis keeps the tree fully compressed on insert and
 * delete, so the count follows from the key set alone: the root, every branching point, every
 * child of a branching point, and every leaf; a run of single-child nodes is one compressed node.
 */
import { type IdKey, keyParts } from './stream-id.ts';

const KEY_BYTES = 16;

function keyBytes(key: IdKey): Uint8Array {
  const bytes = new Uint8Array(KEY_BYTES);
  const [ms, seq] = keyParts(key);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, ms);
  view.setBigUint64(8, seq);
  return bytes;
}

/** Nodes of the subtree holding keys[lo, hi), all sharing their first `depth` bytes. */
function subtreeNodes(keys: readonly Uint8Array[], lo: number, hi: number, depth: number): number {
  if (hi - lo === 1) return depth === KEY_BYTES ? 1 : 2;
  const first = keys[lo]!;
  const last = keys[hi - 1]!;
  let branch = depth;
  while (first[branch] === last[branch]) branch++;
  // A compressed node down to the branching point, unless the branch starts right here.
  let nodes = branch > depth ? 2 : 1;
  let start = lo;
  while (start < hi) {
    const byte = keys[start]![branch];
    let end = start + 1;
    while (end < hi && keys[end]![branch] === byte) end++;
    nodes += subtreeNodes(keys, start, end, branch + 1);
    start = end;
  }
  return nodes;
}

/** rax->numnodes for a tree holding `sortedKeys` (ascending, distinct). */
export function raxNodeCount(sortedKeys: readonly IdKey[]): number {
  if (sortedKeys.length === 0) return 1;
  return subtreeNodes(sortedKeys.map(keyBytes), 0, sortedKeys.length, 0);
}
