/**
 * The real AWS SDK against what the queue added to receives (docs/sqs-queue-needs.md §10):
 * ApproximateFirstReceiveTimestamp on every receive, the same on each. On the in-process engine and
 * on real Redis over TCP, like test/sqs/sdk.test.ts; and, on real Redis, a message in flight
 * without the first-delivery record (as the previous release leaves it) answered as phase 1 did.
 */
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../support/redis.ts';
import { backends, uniqueQueue, useSqsStack } from './support/stack.ts';

/** Receives the one message of `QueueUrl` and makes it visible again at once; its system attributes. */
async function receiveOnce(sqs: SQSClient, QueueUrl: string): Promise<Record<string, string>> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl,
      WaitTimeSeconds: 2,
      MessageSystemAttributeNames: ['ApproximateFirstReceiveTimestamp', 'ApproximateReceiveCount'],
    }),
  );
  expect(Messages).toHaveLength(1);
  const [message] = Messages;
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl,
      ReceiptHandle: message?.ReceiptHandle as string,
      VisibilityTimeout: 0,
    }),
  );
  return message?.Attributes ?? {};
}

describe.each(backends)('SQS receive extras on $name', (backend) => {
  const { skip } = backend;
  const stack = useSqsStack(backend);
  let sqs: SQSClient;
  beforeAll(() => {
    if (skip === undefined) sqs = stack().client();
  });

  describe.skipIf(skip !== undefined)('ApproximateFirstReceiveTimestamp', () => {
    it('is the first receive time on every receive, in ms', async () => {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueQueue('first') }));
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'again and again' }));
      const receive = () => receiveOnce(sqs, QueueUrl as string);
      const before = Date.now();
      const first = await receive();
      const after = Date.now();
      const stamp = Number(first.ApproximateFirstReceiveTimestamp);
      expect(stamp).toBeGreaterThanOrEqual(before - 1000);
      expect(stamp).toBeLessThanOrEqual(after);
      expect(first.ApproximateReceiveCount).toBe('1');
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const count of ['2', '3']) {
        expect(await receive()).toEqual({
          ApproximateFirstReceiveTimestamp: first.ApproximateFirstReceiveTimestamp,
          ApproximateReceiveCount: count,
        });
      }
    });
  });
});

const redisBackend = backends.find((b) => b.name === 'redis');

describe.skipIf(redisBackend?.skip !== undefined)('SQS with data of the previous release on redis', () => {
  const prefix = `sqs-first-${crypto.randomUUID().slice(0, 8)}`;
  const stack = useSqsStack(redisBackend as (typeof backends)[number], { QUEUE_KEY_PREFIX: prefix });
  const direct = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  afterAll(async () => {
    let cursor = '0';
    do {
      const [next, found] = await direct.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (found.length > 0) await direct.del(...found);
    } while (cursor !== '0');
    direct.disconnect();
  });

  it('leaves ApproximateFirstReceiveTimestamp out after the first receive of a message in flight without the record', async () => {
    const sqs = stack().client();
    const name = uniqueQueue('first-old');
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'from before' }));
    const first = await receiveOnce(sqs, QueueUrl as string);
    expect(first.ApproximateReceiveCount).toBe('1');
    expect(Number(first.ApproximateFirstReceiveTimestamp)).toBeGreaterThan(0);
    // What the previous release leaves: the pending entry without its first delivery time.
    const meta = `${prefix}:{${name}}:g:sqs:meta`;
    const records = (await direct.hkeys(meta)).filter((field) => field.startsWith('d:'));
    expect(records).toHaveLength(1);
    await direct.hdel(meta, ...records);
    expect(await receiveOnce(sqs, QueueUrl as string)).toEqual({ ApproximateReceiveCount: '2' });
  });
});
