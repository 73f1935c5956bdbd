/**
 * Reading an action's input members, checked as SQS checks them (the SDKs check nothing, so every
 * member can arrive missing, of the wrong type or out of range). Integers may come as JSON numbers
 * or, from the query protocol, as decimal text.
 */
import { invalidValue, missing, SqsError, SqsErrorCode } from './errors.ts';

export type Input = Record<string, unknown>;

export function optionalString(input: Input, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidValue(name, value, 'must be a string.');
  return value;
}

export function requiredString(input: Input, name: string): string {
  const value = optionalString(input, name);
  if (value === undefined || value === '') throw missing(name);
  return value;
}

export function optionalInt(
  input: Input,
  name: string,
  min: number,
  max: number,
  reason?: string,
): number | undefined {
  const raw = input[name];
  if (raw === undefined || raw === null) return undefined;
  const value = typeof raw === 'string' && /^-?\d{1,15}$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidValue(name, raw, reason ?? `Must be between ${min} and ${max}, if provided.`);
  }
  return value;
}

export function stringList(input: Input, name: string): string[] {
  const value = input[name];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw invalidValue(name, value, 'must be a list of strings.');
  }
  return value as string[];
}

export function stringMap(input: Input, name: string): Record<string, string> | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== 'object' ||
    Array.isArray(value) ||
    Object.values(value).some((item) => typeof item !== 'string')
  ) {
    throw invalidValue(name, value, 'must be a map of strings to strings.');
  }
  return value as Record<string, string>;
}

const entryIdPattern = /^[A-Za-z0-9_-]{1,80}$/;
export const MAX_BATCH_ENTRIES = 10;

/**
 * A batch's entries: 1-10 objects, each with an Id of 1-80 characters of A-Z a-z 0-9 - _, the ids
 * distinct. Errors for the whole request, as SQS answers them.
 */
export function batchEntries(input: Input): { id: string; entry: Input }[] {
  const value = input.Entries;
  if (value === undefined || value === null) throw missing('Entries');
  if (!Array.isArray(value)) throw invalidValue('Entries', value, 'must be a list of entries.');
  if (value.length === 0) {
    throw new SqsError(SqsErrorCode.emptyBatchRequest, 'There should be at least one entry in the request.');
  }
  if (value.length > MAX_BATCH_ENTRIES) {
    throw new SqsError(
      SqsErrorCode.tooManyEntriesInBatchRequest,
      `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${value.length}.`,
    );
  }
  const seen = new Set<string>();
  return value.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw invalidValue('Entries', entry, 'each entry must be an object.');
    }
    const id = (entry as Input).Id;
    if (typeof id !== 'string' || !entryIdPattern.test(id)) {
      throw new SqsError(
        SqsErrorCode.invalidBatchEntryId,
        'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
      );
    }
    if (seen.has(id)) {
      throw new SqsError(SqsErrorCode.batchEntryIdsNotDistinct, `Id ${id} repeated.`);
    }
    seen.add(id);
    return { id, entry: entry as Input };
  });
}

/** A batch's per-entry failure as SQS lists it in `Failed`. */
export interface BatchFailure {
  Id: string;
  SenderFault: boolean;
  Code: string;
  Message: string;
}
