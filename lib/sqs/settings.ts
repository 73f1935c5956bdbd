/**
 * The SQS endpoint's settings from the environment map the entry points pass (lib/api/settings.ts
 * calls this): SQS_CREDENTIALS (the keys; without any the endpoint refuses every request),
 * SQS_ACCOUNT_ID (the 12 digits in queue URLs and ARNs, default 000000000000) and SQS_REGION (in
 * ARNs, default us-east-1). Errors name the variable, never its value.
 */
import { parseSqsCredentials, type SqsCredential } from './credentials.ts';

export interface SqsSettings {
  credentials: SqsCredential[];
  accountId: string;
  region: string;
}

export const DEFAULT_SQS_ACCOUNT_ID = '000000000000';
export const DEFAULT_SQS_REGION = 'us-east-1';

type Env = Readonly<Record<string, string | undefined>>;

/** @example readSqsSettings({ SQS_CREDENTIALS: 'AKID:secret:admin' }) */
export function readSqsSettings(env: Env): SqsSettings {
  const accountId = env.SQS_ACCOUNT_ID?.trim() || DEFAULT_SQS_ACCOUNT_ID;
  if (!/^\d{12}$/.test(accountId)) throw new Error('SQS_ACCOUNT_ID must be 12 digits');
  const region = env.SQS_REGION?.trim() || DEFAULT_SQS_REGION;
  if (!/^[a-z0-9-]{1,32}$/.test(region)) {
    throw new Error('SQS_REGION must be 1-32 characters of a-z 0-9 - (such as us-east-1)');
  }
  return { credentials: parseSqsCredentials(env.SQS_CREDENTIALS ?? ''), accountId, region };
}
