/**
 * One queue, two APIs: messages produced natively are receivable over SQS and the other way round,
 * with the body and attribute mapping docs/sqs.md states, and a queue made natively is served over
 * SQS with its backlog.
 */
import {
  CreateQueueCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SQS_GROUP } from '../../lib/sqs/port.ts';
import { backends, uniqueQueue, useSqsStack } from './support/stack.ts';

describe.each(backends)('native and SQS on $name', (backend) => {
  const { skip } = backend;
  const stack = useSqsStack(backend);

  it.skipIf(skip !== undefined)(
    'receives natively produced messages over SQS: JSON bodies as their text, attributes as Strings',
    async () => {
      const sqs = stack().client();
      const queue = uniqueQueue('native');
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queue }));
      const native = stack().server.service.queue;
      const [objectId, textId] = await native.produce(queue, [
        { body: { sku: 42, tags: ['a'] }, attributes: { tenant: 'acme', 'sqs:hidden': 'x' } },
        { body: 'plain text' },
      ]);
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }),
      );
      expect(Messages.map((m) => [m.MessageId, m.Body, m.MessageAttributes])).toEqual([
        [objectId, '{"sku":42,"tags":["a"]}', { tenant: { DataType: 'String', StringValue: 'acme' } }],
        [textId, 'plain text', undefined],
      ]);
    },
  );

  it.skipIf(skip !== undefined)(
    'keeps SQS messages natively as a string body and attributes, the types aside',
    async () => {
      const sqs = stack().client();
      const queue = uniqueQueue('sqs-side');
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queue }));
      const sent = await sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: '{"looks":"like json"}',
          MessageAttributes: {
            plain: { DataType: 'String', StringValue: 'v' },
            n: { DataType: 'Number.int', StringValue: '7' },
            b: { DataType: 'Binary', BinaryValue: new Uint8Array([104, 105]) },
          },
          MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: 'Root=1-abc' } },
        }),
      );
      const [message] = await stack().server.service.queue.browse(queue, {});
      expect(message?.id).toBe(sent.MessageId);
      expect(message?.body).toBe('{"looks":"like json"}');
      expect(message?.attributes).toEqual({
        plain: 'v',
        n: '7',
        b: 'aGk=',
        'sqs:types': '{"n":"Number.int","b":"Binary"}',
        'sqs:trace': 'Root=1-abc',
      });
      const consumed = await stack().server.service.queue.consume(queue, SQS_GROUP, 'native-reader', 1);
      expect(consumed.map((m) => m.body)).toEqual(['{"looks":"like json"}']);
    },
  );

  it.skipIf(skip !== undefined)(
    'serves a queue made natively, with its backlog, from the first receive',
    async () => {
      const sqs = stack().client();
      const queue = uniqueQueue('made-natively');
      await stack().server.service.queue.produce(queue, [{ body: 'backlog' }]);
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queue }));
      const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5 }));
      const { Messages = [] } =
        (first.Messages ?? []).length > 0
          ? first
          : await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5 }));
      expect(Messages.map((m) => m.Body)).toEqual(['backlog']);
    },
  );
});
