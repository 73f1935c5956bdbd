/**
 * One stream entry, as the stream stores it and as a consumer group's pending record points at it.
 * Its own module so the stream (which owns its groups) and the groups (which read its entries)
 * both depend on it instead of on each other.
 */
import type { IdKey } from './stream-id.ts';

/** One entry. `fields` alternates field and value. A deleted entry is a tombstone in its node. */
export interface StreamEntry {
  readonly key: IdKey;
  /** The id as Redis prints it. */
  readonly id: string;
  readonly fields: readonly string[];
  deleted: boolean;
}
