/**
 * The client's request and answer types, inferred from the zod schemas the API validates with
 * (lib/api/schemas.ts). Type-only imports: the client loads no zod at run time, yet a field added
 * to a schema is a field of these types.
 */
import type { z } from '@hono/zod-openapi';
import type {
  ConsumeBody,
  DeadLetterList,
  DeadLetterSchema,
  DlqQuery,
  GroupCreateBody,
  Health,
  MessageInputSchema,
  MessageSchema,
  PendingEntries,
  PendingQuery,
  PendingSummarySchema,
  QueueConfigPatch as QueueConfigPatchSchema,
  QueueConfigSchema,
  QueueStatsSchema,
  ReclaimBody,
  ReclaimResultSchema,
  RedriveBody,
  SweepBody,
  SweepReportSchema,
} from '../api/schemas.ts';

/** A message as delivered: id, JSON body, attributes, delivery count, enqueue time. */
export type Message = z.infer<typeof MessageSchema>;
/** A message to produce: `body`, and optionally `dedupId`, `delayMs`, `attributes`. */
export type MessageInput = z.infer<typeof MessageInputSchema>;
/** Every config field of a queue, defaults filled in. */
export type QueueConfig = z.infer<typeof QueueConfigSchema>;
/** The config fields to change; the rest keep their values. */
export type QueueConfigPatch = z.infer<typeof QueueConfigPatchSchema>;
export type QueueStats = z.infer<typeof QueueStatsSchema>;
export type GroupCreateOptions = z.input<typeof GroupCreateBody>;
/** consume's body without the consumer, which `consume` takes as its own field. */
export type ConsumeOptions = z.input<typeof ConsumeBody>;
export type ReclaimOptions = z.input<typeof ReclaimBody>;
export type ReclaimResult = z.infer<typeof ReclaimResultSchema>;
export type PendingSummary = z.infer<typeof PendingSummarySchema>;
export type PendingEntry = z.infer<typeof PendingEntries>['entries'][number];
/** The pending list's query as values (numbers, not the query string's text). */
export type PendingRangeOptions = z.output<typeof PendingQuery>;
export type DlqListOptions = z.output<typeof DlqQuery>;
export type DeadLetter = z.infer<typeof DeadLetterSchema>;
export type DeadLetterPage = z.infer<typeof DeadLetterList>;
export type RedriveSelection = z.infer<typeof RedriveBody>;
export type SweepOptions = z.input<typeof SweepBody>;
export type SweepReport = z.infer<typeof SweepReportSchema>;
export type HealthReport = z.infer<typeof Health>;
