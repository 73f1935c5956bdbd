/**
 * SQS queue names, URLs and ARNs. A queue URL is `<base>/sqs/<account>/<name>`, its origin the
 * one the request came to (so an SDK that posts to the QueueUrl's origin reaches this service);
 * an ARN is `arn:aws:sqs:<region>:<account>:<name>`. A name is also the native queue's name: every
 * SQS name is a valid native one.
 */
import { SqsError, SqsErrorCode } from './errors.ts';

const standardPattern = /^[A-Za-z0-9_-]{1,80}$/;
const fifoPattern = /^[A-Za-z0-9_-]{1,75}\.fifo$/;

/** Where the endpoint is and whose queues it serves. */
export interface Endpoint {
  /** The request's origin plus whatever path leads to `/sqs` (none when served at the root). */
  base: string;
  accountId: string;
  region: string;
}

export const NAME_TEXT =
  'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length (a FIFO queue name ends in .fifo, which counts)';

export function isQueueName(name: string): boolean {
  return standardPattern.test(name) || fifoPattern.test(name);
}

export function isFifoName(name: string): boolean {
  return name.endsWith('.fifo');
}

export function queueUrl(endpoint: Endpoint, name: string): string {
  return `${endpoint.base}/sqs/${endpoint.accountId}/${name}`;
}

export function queueArn(endpoint: Endpoint, name: string): string {
  return `arn:aws:sqs:${endpoint.region}:${endpoint.accountId}:${name}`;
}

/**
 * The queue a QueueUrl names. Any origin is taken (clients reach one service by several names:
 * localhost, 127.0.0.1, a proxy); the path must end in `/<account>/<name>`.
 */
export function queueNameOfUrl(endpoint: Endpoint, url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    throw new SqsError(SqsErrorCode.invalidAddress, `The address ${url} is not valid for this endpoint.`);
  }
  const match = /\/(\d{12})\/([^/]+)$/.exec(path);
  if (match === null) {
    throw new SqsError(SqsErrorCode.invalidAddress, `The address ${url} is not valid for this endpoint.`);
  }
  const [, account, name] = match as unknown as [string, string, string];
  if (account !== endpoint.accountId || !isQueueName(name)) {
    throw new SqsError(SqsErrorCode.queueDoesNotExist, 'The specified queue does not exist.');
  }
  return name;
}

/** The queue an ARN names; undefined when it is no SQS queue ARN of this account and region. */
export function queueNameOfArn(endpoint: Endpoint, arn: string): string | undefined {
  const parts = arn.split(':');
  if (parts.length !== 6) return undefined;
  const [arnWord, partition, service, region, account, name] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (arnWord !== 'arn' || partition !== 'aws' || service !== 'sqs') return undefined;
  if (region !== endpoint.region || account !== endpoint.accountId || !isQueueName(name)) return undefined;
  return name;
}
