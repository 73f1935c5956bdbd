/**
 * The sorted-set value: members ordered by (score, member).
 * (Filled in by the sorted-set work; this placeholder only lets the keyspace name the type.)
 */
export class SortedSet {}
