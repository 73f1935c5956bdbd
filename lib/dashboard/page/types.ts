/**
 * The API's answers as the page reads them: the API's own plain types (lib/api/wire-types.ts),
 * which its zod schemas are checked against, so nothing of zod reaches the browser.
 */
import type {
  DeadLetterPage,
  MessageLookup as Lookup,
  MessageList,
  PendingEntries,
  ProduceResult,
  QueueList,
  RedriveResult,
  SweepReport as Report,
  QueueStats as Stats,
  PendingSummary as Summary,
} from '../../api/wire-types.ts';

export type QueueStats = Stats;
export type GroupStats = QueueStats['groups'][number];
export type Queues = QueueList;
export type PendingSummary = Summary;
export type PendingEntry = PendingEntries['entries'][number];
export type Pending = PendingEntries;
export type DeadLetters = DeadLetterPage;
export type DeadLetter = DeadLetters['deadLetters'][number];
export type Messages = MessageList;
export type Message = Messages['messages'][number];
export type MessageLookup = Lookup;
export type Produced = ProduceResult;
export type Redriven = RedriveResult;
export type SweepReport = Report;
