/**
 * The API's answers as the page reads them, taken from the zod schemas that describe them (type
 * imports only: nothing of zod reaches the browser).
 */
import type { z } from '@hono/zod-openapi';
import type {
  DeadLetterList,
  MessageList,
  MessageLookupSchema,
  PendingEntries,
  PendingSummarySchema,
  ProduceResult,
  QueueList,
  QueueStatsSchema,
  RedriveResult,
  SweepReportSchema,
} from '../../api/schemas.ts';

export type QueueStats = z.output<typeof QueueStatsSchema>;
export type GroupStats = QueueStats['groups'][number];
export type Queues = z.output<typeof QueueList>;
export type PendingSummary = z.output<typeof PendingSummarySchema>;
export type PendingEntry = z.output<typeof PendingEntries>['entries'][number];
export type Pending = z.output<typeof PendingEntries>;
export type DeadLetters = z.output<typeof DeadLetterList>;
export type DeadLetter = DeadLetters['deadLetters'][number];
export type Messages = z.output<typeof MessageList>;
export type Message = Messages['messages'][number];
export type MessageLookup = z.output<typeof MessageLookupSchema>;
export type Produced = z.output<typeof ProduceResult>;
export type Redriven = z.output<typeof RedriveResult>;
export type SweepReport = z.output<typeof SweepReportSchema>;
