/**
 * The real AWS SDK against what the queue added to receives (docs/sqs-queue-needs.md §10):
 * ApproximateFirstReceiveTimestamp on every receive, the same on each. On the in-process engine and
 * on real Redis over TCP, like test/sqs/sdk.test.ts.
 */
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, uniqueQueue, useSqsStack } from './support/stack.ts';

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
      const receive = async () => {
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
      };
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
