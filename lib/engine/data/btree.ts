/**
 * The one import of sorted-btree. It is CommonJS with `exports.default`: bundlers and vitest hand
 * that class to a default import, but Node's own ESM loader (tsx, `npm start`, `npm run engine`)
 * hands over the exports object. Resolving the constructor here once keeps every ordered
 * structure of the engine working under both.
 */
import SortedBTree from 'sorted-btree';

export type BTree<K, V> = SortedBTree<K, V>;

export const BTree: typeof SortedBTree =
  (SortedBTree as unknown as { default?: typeof SortedBTree }).default ?? SortedBTree;
