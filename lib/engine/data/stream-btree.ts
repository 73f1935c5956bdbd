/** The ordered map the stream code keeps nodes and pending entries in, keyed by id keys. */
import { IdTree } from './id-tree.ts';

export type IdMap<V> = IdTree<V>;

/** An empty map ordered by id. */
export function createIdMap<V>(): IdMap<V> {
  return new IdTree<V>();
}
