/**
 * The client's request and answer types: the API's own plain types (lib/api/wire-types.ts), which
 * lib/api/schemas.ts is checked against at compile time. Plain TypeScript, so the published
 * declarations need neither zod nor hono.
 */
export type {
  Body,
  CancelResult,
  ConsumeOptions,
  DeadLetter,
  DeadLetterPage,
  DlqListOptions,
  GroupCreateOptions,
  GroupPaused,
  GroupStats,
  HealthReport,
  Message,
  MessageGroupState,
  MessageInput,
  MessageLookup,
  PendingEntry,
  PendingRangeOptions,
  PendingSummary,
  QueueConfig,
  QueueConfigPatch,
  QueuePaused,
  QueueStats,
  RateLimit,
  ReclaimOptions,
  ReclaimResult,
  RedriveSelection,
  Schedule,
  ScheduleInput,
  ScheduleMessage,
  SweepOptions,
  SweepReport,
} from '../api/wire-types.ts';
