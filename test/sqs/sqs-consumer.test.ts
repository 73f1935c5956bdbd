/**
 * sqs-consumer, unchanged, on this queue: 1,000 messages through two consumers whose handlers
 * crash (whole batches, answered with ChangeMessageVisibilityBatch to 0, and single messages left
 * undeleted until their visibility timeout ends). Every message is handled and deleted once;
 * none is lost; the queue ends empty.
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { Consumer } from 'sqs-consumer';
import { describe, expect, it } from 'vitest';
import { backends, uniqueQueue, useSqsStack } from './support/stack.ts';

const TOTAL = 1000;

describe.each(backends)('sqs-consumer on $name', (backend) => {
  const { skip } = backend;
  const stack = useSqsStack(backend);

  it.skipIf(skip !== undefined)(
    'handles and deletes each of 1,000 messages once with crashing handlers, losing none',
    async () => {
      const admin = stack().client();
      const { QueueUrl } = await admin.send(
        new CreateQueueCommand({
          QueueName: uniqueQueue('consumer'),
          Attributes: { VisibilityTimeout: '2' },
        }),
      );
      const url = QueueUrl as string;
      for (let start = 0; start < TOTAL; start += 10) {
        await admin.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: Array.from({ length: 10 }, (_, i) => ({
              Id: `m${start + i}`,
              MessageBody: `job-${start + i}`,
            })),
          }),
        );
      }

      const handled = new Map<string, number>();
      const deletedIds: string[] = [];
      const attempts = new Map<string, number>();
      let batches = 0;
      /** The consume key's client, with its deletes recorded as the server confirmed them. */
      const recording = (client: SQSClient): SQSClient => {
        const send = client.send.bind(client);
        client.send = (async (command: unknown, ...rest: unknown[]) => {
          const output = await (send as (c: unknown, ...r: unknown[]) => Promise<unknown>)(command, ...rest);
          if (command instanceof DeleteMessageBatchCommand) {
            const ids = new Map(command.input.Entries?.map((e) => [e.Id, e.Id]));
            for (const entry of (output as { Successful?: { Id?: string }[] }).Successful ?? []) {
              deletedIds.push(ids.get(entry.Id) as string);
            }
          }
          return output;
        }) as SQSClient['send'];
        return client;
      };
      const handleMessageBatch = async (messages: Message[]): Promise<Message[]> => {
        batches++;
        // Every seventh batch crashes whole: its messages come back at once (visibility 0).
        if (batches % 7 === 0) throw new Error('handler crashed');
        const done: Message[] = [];
        for (const message of messages) {
          const body = message.Body as string;
          const attempt = (attempts.get(body) ?? 0) + 1;
          attempts.set(body, attempt);
          // A fifth of the jobs fail their first attempt alone: left undeleted, back after 2 s.
          if (attempt === 1 && Number(body.slice(4)) % 5 === 0) continue;
          handled.set(body, (handled.get(body) ?? 0) + 1);
          done.push(message);
        }
        return done;
      };
      const consumers = [0, 1].map(() =>
        Consumer.create({
          queueUrl: url,
          sqs: recording(stack().client('consume')),
          batchSize: 10,
          waitTimeSeconds: 1,
          pollingWaitTimeMs: 0,
          terminateVisibilityTimeout: true,
          handleMessageBatch,
        }),
      );
      const errors: Error[] = [];
      for (const consumer of consumers) {
        consumer.on('error', (error) => errors.push(error));
        consumer.start();
      }
      const deadline = Date.now() + 120_000;
      while (handled.size < TOTAL && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      // Give the last deletes time to land, then stop.
      await new Promise((r) => setTimeout(r, 500));
      for (const consumer of consumers) consumer.stop({ abort: true });

      // sqs-consumer reports each crashed batch as an error event; nothing else went wrong.
      expect(errors.map((e) => e.message)).toEqual(
        Array.from(
          { length: Math.floor(batches / 7) },
          () => 'Unexpected message batch handler failure: handler crashed',
        ),
      );
      expect(handled.size).toBe(TOTAL);
      expect([...handled.values()].every((n) => n === 1)).toBe(true);
      expect(deletedIds).toHaveLength(TOTAL);
      expect(new Set(deletedIds).size).toBe(TOTAL);
      const counts = await admin.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
      );
      expect(counts.Attributes).toMatchObject({
        ApproximateNumberOfMessages: '0',
        ApproximateNumberOfMessagesNotVisible: '0',
        ApproximateNumberOfMessagesDelayed: '0',
      });
    },
    180_000,
  );
});
