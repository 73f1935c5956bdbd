/**
 * Recurring schedules: the input check (cron expressions and time zones parsed by croner, never by
 * hand) and the one occurrence a sweep fires. The stored spec is JSON with the message already
 * encoded (body and attributes as JSON text), so the fire script adds exactly what produce would.
 */
import { Cron } from 'croner';
import { QueueError, QueueErrorCode } from './errors.ts';
import type { Limits } from './rules.ts';
import type { Schedule, ScheduleInput } from './types.ts';
import { encodeMessages } from './validate.ts';

/** What the schedules hash stores per schedule. */
interface StoredSpec {
  cron: string;
  timezone: string;
  body: string;
  attributes: string;
  dedupId?: string;
  ttlMs: number;
}

const MESSAGE_FIELDS = new Set(['body', 'attributes', 'dedupId', 'ttlMs']);
const INPUT_FIELDS = new Set(['cron', 'timezone', 'message']);

function invalid(message: string, details?: unknown): never {
  throw new QueueError(QueueErrorCode.invalidArgument, message, details);
}

function job(cron: string, timezone: string): Cron {
  return new Cron(cron, { timezone, paused: true, mode: '5-part' });
}

/** Checks a schedule and answers its stored spec (JSON text). */
export function encodeSchedule(input: unknown, limits: Limits, now: number): string {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    invalid('schedule must be an object');
  const { cron, timezone = 'UTC', message } = input as Partial<ScheduleInput> & Record<string, unknown>;
  for (const field of Object.keys(input)) {
    if (!INPUT_FIELDS.has(field)) invalid(`schedule has an unknown field ${field}`);
  }
  if (typeof timezone !== 'string' || timezone === '') {
    invalid('timezone must be an IANA time zone such as Europe/Paris', { timezone });
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    invalid('timezone must be an IANA time zone such as Europe/Paris', { timezone });
  }
  if (typeof cron !== 'string' || cron.length > 256) {
    invalid('cron must be a 5-field cron expression such as */5 * * * *', { cron });
  }
  let next: Date | null;
  try {
    next = job(cron, timezone).nextRun(new Date(now));
  } catch (error) {
    invalid(`cron must be a 5-field cron expression such as */5 * * * *: ${(error as Error).message}`, {
      cron,
    });
  }
  if (next === null) invalid('cron never fires', { cron });
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    invalid('message must be an object');
  }
  for (const field of Object.keys(message)) {
    if (!MESSAGE_FIELDS.has(field)) invalid(`message has an unknown field ${field}`);
  }
  const [encoded] = encodeMessages([message], limits);
  if (encoded === undefined) invalid('message must be an object');
  const spec: StoredSpec = {
    cron,
    timezone,
    body: encoded.body,
    attributes: encoded.attributes,
    ttlMs: encoded.ttlMs,
    ...(encoded.dedupId === undefined ? {} : { dedupId: encoded.dedupId }),
  };
  return JSON.stringify(spec);
}

/** A stored spec as the API shows it, with its next occurrence after `now`. */
export function decodeSchedule(name: string, text: string, last: number, now: number): Schedule {
  const spec = JSON.parse(text) as StoredSpec;
  const message: Schedule['message'] = { body: JSON.parse(spec.body) };
  if (spec.attributes !== '') message.attributes = JSON.parse(spec.attributes);
  if (spec.dedupId !== undefined) message.dedupId = spec.dedupId;
  if (spec.ttlMs > 0) message.ttlMs = spec.ttlMs;
  const next = job(spec.cron, spec.timezone).nextRun(new Date(now));
  return {
    name,
    cron: spec.cron,
    timezone: spec.timezone,
    message,
    lastFiredAt: last,
    nextRunAt: next === null ? null : next.getTime(),
  };
}

/** The dedupId a stored spec enqueues with, if any. */
export function scheduleDedupId(text: string): string | undefined {
  return (JSON.parse(text) as StoredSpec).dedupId;
}

/**
 * The occurrence a sweep at `now` fires: the latest one at or before `now`, if it is after the
 * last one fired; with the one before it (0 when none), which says whether others were missed.
 */
export function dueOccurrence(
  text: string,
  last: number,
  now: number,
): { at: number; previous: number } | null {
  const spec = JSON.parse(text) as StoredSpec;
  const [latest, before] = job(spec.cron, spec.timezone).previousRuns(2, new Date(now + 1));
  if (latest === undefined || latest.getTime() <= last || latest.getTime() > now) return null;
  return { at: latest.getTime(), previous: before?.getTime() ?? 0 };
}

/** The first occurrence after `after` (ms), or null when the expression has none left. */
export function nextOccurrence(text: string, after: number): number | null {
  const spec = JSON.parse(text) as StoredSpec;
  const next = job(spec.cron, spec.timezone).nextRun(new Date(after));
  return next === null ? null : next.getTime();
}
