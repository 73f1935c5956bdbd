/**
 * The stream value: entries ordered by id, consumer groups with their pending entries lists.
 * (Filled in by the streams work; this placeholder only lets the keyspace name the type.)
 */
export class Stream {}
