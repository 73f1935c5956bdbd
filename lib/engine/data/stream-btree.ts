/** The ordered map the stream code keeps nodes and pending entries in: a B+ tree keyed by id keys. */
import { BTree } from './btree.ts';
import type { IdKey } from './stream-id.ts';

export type IdMap<V> = BTree<IdKey, V>;

function compareKeys(a: IdKey, b: IdKey): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An empty map ordered by id. */
export function createIdMap<V>(): IdMap<V> {
  return new BTree<IdKey, V>(undefined, compareKeys);
}
