/**
 * The ordered map the stream code keeps nodes and pending entries in: a B+ tree keyed by id keys.
 * sorted-btree is CommonJS with `exports.default`; bundlers hand that class to a default import,
 * but Node's own ESM loader (tsx, `npm run engine`) hands over the exports object, so the
 * constructor is resolved from whichever arrived.
 */
import SortedBTree from 'sorted-btree';
import type { IdKey } from './stream-id.ts';

export type IdMap<V> = SortedBTree<IdKey, V>;

const BTree: typeof SortedBTree =
  (SortedBTree as unknown as { default?: typeof SortedBTree }).default ?? SortedBTree;

function compareKeys(a: IdKey, b: IdKey): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An empty map ordered by id. */
export function createIdMap<V>(): IdMap<V> {
  return new BTree<IdKey, V>(undefined, compareKeys);
}
