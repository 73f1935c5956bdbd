/**
 * The real AWS SDK (@aws-sdk/client-sqs, its MD5 checks on) against the API as `npm start` serves
 * it, on the in-process engine and on real Redis over TCP: every action phase 1 serves, batch
 * partial failures, the long poll, visibility and stale receipt handles, FIFO order and dedup, and
 * the typed errors SDKs raise. Queue metadata, dead-letter queues and move tasks (phase 2) are in
 * test/sqs/queue-level.test.ts.
 */
import { createHash } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, uniqueQueue, useSqsStack } from './support/stack.ts';
import { thrown } from './support/thrown.ts';

describe.each(backends)('SQS API on $name', (backend) => {
  const { skip } = backend;
  const stack = useSqsStack(backend);
  let sqs: SQSClient;
  beforeAll(() => {
    if (skip === undefined) sqs = stack().client();
  });

  async function create(prefix: string, attributes?: Record<string, string>, fifo = false): Promise<string> {
    const QueueName = uniqueQueue(prefix, fifo);
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName,
        ...(attributes === undefined && !fifo
          ? {}
          : { Attributes: { ...(fifo ? { FifoQueue: 'true' } : {}), ...attributes } }),
      }),
    );
    return QueueUrl as string;
  }

  describe.skipIf(skip !== undefined)('queues', () => {
    it('creates a queue, finds its URL, lists it by prefix and page, reads and sets attributes, deletes it', async () => {
      const prefix = uniqueQueue('life');
      const urls: string[] = [];
      for (const suffix of ['a', 'b', 'c']) {
        const { QueueUrl } = await sqs.send(
          new CreateQueueCommand({
            QueueName: `${prefix}-${suffix}`,
            Attributes: { VisibilityTimeout: '45' },
          }),
        );
        urls.push(QueueUrl as string);
      }
      expect(urls[0]).toBe(`${stack().url}/sqs/000000000000/${prefix}-a`);
      const again = await sqs.send(
        new CreateQueueCommand({ QueueName: `${prefix}-a`, Attributes: { VisibilityTimeout: '45' } }),
      );
      expect(again.QueueUrl).toBe(urls[0]);
      const clash = await thrown(
        sqs.send(
          new CreateQueueCommand({ QueueName: `${prefix}-a`, Attributes: { VisibilityTimeout: '46' } }),
        ),
      );
      expect(clash.name).toBe('QueueNameExists');
      expect(clash.message).toBe(
        'A queue already exists with the same name and a different value for attribute VisibilityTimeout',
      );
      expect((await sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}-b` }))).QueueUrl).toBe(urls[1]);

      const first = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix, MaxResults: 2 }));
      expect(first.QueueUrls).toEqual(urls.slice(0, 2));
      const second = await sqs.send(
        new ListQueuesCommand({
          QueueNamePrefix: prefix,
          MaxResults: 2,
          NextToken: first.NextToken as string,
        }),
      );
      expect(second.QueueUrls).toEqual(urls.slice(2));
      expect(second.NextToken).toBeUndefined();
      expect(
        (await sqs.send(new ListQueuesCommand({ QueueNamePrefix: `${prefix}-none` }))).QueueUrls,
      ).toBeUndefined();

      const attributes = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: urls[0], AttributeNames: ['All'] }),
      );
      expect(attributes.Attributes).toEqual({
        ApproximateNumberOfMessages: '0',
        ApproximateNumberOfMessagesNotVisible: '0',
        ApproximateNumberOfMessagesDelayed: '0',
        CreatedTimestamp: expect.stringMatching(/^\d{10}$/),
        LastModifiedTimestamp: attributes.Attributes?.CreatedTimestamp,
        QueueArn: `arn:aws:sqs:us-east-1:000000000000:${prefix}-a`,
        VisibilityTimeout: '45',
        MessageRetentionPeriod: '345600',
        DelaySeconds: '0',
        MaximumMessageSize: '262144',
        ReceiveMessageWaitTimeSeconds: '0',
        SqsManagedSseEnabled: 'false',
      });
      await sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: urls[0],
          Attributes: {
            VisibilityTimeout: '5',
            MessageRetentionPeriod: '600',
            DelaySeconds: '0',
            RedrivePolicy: '',
          },
        }),
      );
      const some = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: urls[0],
          AttributeNames: ['VisibilityTimeout', 'MessageRetentionPeriod'],
        }),
      );
      expect(some.Attributes).toEqual({ VisibilityTimeout: '5', MessageRetentionPeriod: '600' });
      expect(
        (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: urls[0] }))).Attributes,
      ).toBeUndefined();

      for (const url of urls) await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
      const gone = await thrown(sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}-a` })));
      expect(gone.name).toBe('QueueDoesNotExist');
      expect(gone.Code).toBe('AWS.SimpleQueueService.NonExistentQueue');
      expect(gone.$metadata.httpStatusCode).toBe(400);
      expect((await thrown(sqs.send(new DeleteQueueCommand({ QueueUrl: urls[0] })))).name).toBe(
        'QueueDoesNotExist',
      );
    });

    it('refuses bad names, attributes and values with the codes SQS answers, changing nothing', async () => {
      expect((await thrown(sqs.send(new CreateQueueCommand({ QueueName: 'bad name' })))).name).toBe(
        'InvalidParameterValue',
      );
      expect((await thrown(sqs.send(new CreateQueueCommand({ QueueName: 'x'.repeat(81) })))).name).toBe(
        'InvalidParameterValue',
      );
      const url = await create('attrs');
      const unknown = await thrown(
        sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Colour: 'blue' } as never })),
      );
      expect(unknown.name).toBe('InvalidAttributeName');
      expect(unknown.message).toBe('Unknown Attribute Colour.');
      for (const Attributes of [
        { VisibilityTimeout: '43201' },
        { MessageRetentionPeriod: '59' },
        { DelaySeconds: 'soon' },
        { RedrivePolicy: '{"maxReceiveCount":3}' },
      ]) {
        expect(
          (await thrown(sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes })))).name,
        ).toBe('InvalidAttributeValue');
      }
      expect(
        (
          await thrown(
            sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { FifoQueue: 'true' } })),
          )
        ).name,
      ).toBe('InvalidAttributeName');
      expect(
        (await thrown(sqs.send(new CreateQueueCommand({ QueueName: uniqueQueue('f', true) })))).name,
      ).toBe('InvalidParameterValue');
      const attributes = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
      );
      expect(attributes.Attributes?.VisibilityTimeout).toBe('30');
      expect(
        (
          await thrown(
            sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['Nope' as never] })),
          )
        ).name,
      ).toBe('InvalidAttributeName');
      const elsewhere = await thrown(
        sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: `${stack().url}/sqs/123456789012/x`,
            AttributeNames: ['All'],
          }),
        ),
      );
      expect(elsewhere.name).toBe('QueueDoesNotExist');
      const garbage = await thrown(sqs.send(new PurgeQueueCommand({ QueueUrl: 'not a url' })));
      expect(garbage.name).toBe('InvalidAddress');
    });
  });

  describe.skipIf(skip !== undefined)('messages', () => {
    it('sends, receives and deletes, the SDK checking every MD5, attributes coming back exactly', async () => {
      const url = await create('msg');
      const MessageAttributes = {
        City: { DataType: 'String', StringValue: 'Any City' },
        Count: { DataType: 'Number', StringValue: '-12.50e3' },
        Blob: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 2, 255]) },
        'order.kind': { DataType: 'String.custom', StringValue: 'röd 😀' },
      };
      const body = 'Hello, world!\r\n{"json": true} — Grüße 😀\t';
      const sent = await sqs.send(
        new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageAttributes }),
      );
      expect(sent.MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
      const received = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      );
      expect(received.Messages).toHaveLength(1);
      const message = received.Messages?.[0];
      expect(message?.MessageId).toBe(sent.MessageId);
      expect(message?.Body).toBe(body);
      expect(message?.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
      expect(message?.MessageAttributes).toEqual(MessageAttributes);
      expect(message?.Attributes).toMatchObject({ ApproximateReceiveCount: '1', SenderId: '000000000000' });
      expect(Number(message?.Attributes?.SentTimestamp)).toBeGreaterThan(Date.now() - 60_000);

      const selected = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 0 }));
      expect(selected.Messages ?? []).toEqual([]);
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message?.ReceiptHandle as string }),
      );
      // Deleting again (the message is gone) succeeds as SQS's does.
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message?.ReceiptHandle as string }),
      );
      const counts = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
      );
      expect(counts.Attributes).toMatchObject({
        ApproximateNumberOfMessages: '0',
        ApproximateNumberOfMessagesNotVisible: '0',
      });
    });

    it('answers only the message attributes asked for, with their MD5', async () => {
      const url = await create('select');
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: 'b',
          MessageAttributes: {
            'order.id': { DataType: 'String', StringValue: '1' },
            'order.kind': { DataType: 'String', StringValue: 'x' },
            tenant: { DataType: 'String', StringValue: 't' },
          },
        }),
      );
      const [message] =
        (
          await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: url,
              MessageAttributeNames: ['order.*'],
              VisibilityTimeout: 0,
            }),
          )
        ).Messages ?? [];
      expect(Object.keys(message?.MessageAttributes ?? {}).sort()).toEqual(['order.id', 'order.kind']);
      const [bare] =
        (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 0 }))).Messages ?? [];
      expect(bare?.MessageAttributes).toBeUndefined();
      expect(bare?.MD5OfMessageAttributes).toBeUndefined();
      expect(bare?.Attributes).toBeUndefined();
    });

    it('refuses bodies and attributes SQS refuses', async () => {
      const url = await create('refuse');
      const cases: [Record<string, unknown>, string][] = [
        [{ MessageBody: '' }, 'MissingParameter'],
        [{ MessageBody: 'bad \u0001 char' }, 'InvalidMessageContents'],
        [{ MessageBody: 'lone \ud800 surrogate' }, 'InvalidMessageContents'],
        [{ MessageBody: 'x'.repeat(262_145) }, 'InvalidParameterValue'],
        [{ MessageBody: 'x', DelaySeconds: 901 }, 'InvalidParameterValue'],
        [{ MessageBody: 'x', MessageDeduplicationId: 'd' }, 'InvalidParameterValue'],
        [
          { MessageBody: 'x', MessageAttributes: { 'AWS.x': { DataType: 'String', StringValue: 'v' } } },
          'InvalidParameterValue',
        ],
        [
          { MessageBody: 'x', MessageAttributes: { a: { DataType: 'Text', StringValue: 'v' } } },
          'InvalidParameterValue',
        ],
        [
          { MessageBody: 'x', MessageAttributes: { a: { DataType: 'Number', StringValue: '1e' } } },
          'InvalidParameterValue',
        ],
        [
          { MessageBody: 'x', MessageAttributes: { a: { DataType: 'String', StringValue: '' } } },
          'InvalidParameterValue',
        ],
      ];
      for (const [input, code] of cases) {
        const error = await thrown(sqs.send(new SendMessageCommand({ QueueUrl: url, ...input } as never)));
        expect([input, error.name]).toEqual([input, code]);
      }
      const attributes = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      expect(attributes.Attributes?.ApproximateNumberOfMessages).toBe('0');
      const missing = await thrown(
        sqs.send(
          new SendMessageCommand({
            QueueUrl: `${stack().endpoint}/000000000000/${uniqueQueue('none')}`,
            MessageBody: 'x',
          }),
        ),
      );
      expect(missing.name).toBe('QueueDoesNotExist');
    });

    it('reports batch partial failures entry by entry and refuses malformed batches whole', async () => {
      const url = await create('batch');
      const result = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: [
            { Id: 'ok-1', MessageBody: 'one' },
            { Id: 'empty', MessageBody: '' },
            { Id: 'ok-2', MessageBody: 'two', DelaySeconds: 1 },
            { Id: 'big', MessageBody: 'x'.repeat(262_145) },
          ],
        }),
      );
      expect(result.Successful?.map((e) => e.Id)).toEqual(['ok-1', 'ok-2']);
      expect(result.Failed).toEqual([
        {
          Id: 'empty',
          SenderFault: true,
          Code: 'MissingParameter',
          Message: 'The request must contain the parameter MessageBody.',
        },
        {
          Id: 'big',
          SenderFault: true,
          Code: 'InvalidParameterValue',
          Message: 'One or more parameters are invalid. Reason: Message must be shorter than 262144 bytes.',
        },
      ]);
      const tooMany = await thrown(
        sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: Array.from({ length: 11 }, (_, i) => ({ Id: `m${i}`, MessageBody: 'x' })),
          }),
        ),
      );
      expect(tooMany.name).toBe('TooManyEntriesInBatchRequest');
      expect(tooMany.message).toBe('Maximum number of entries per request are 10. You have sent 11.');
      expect(
        (
          await thrown(
            sqs.send(
              new SendMessageBatchCommand({
                QueueUrl: url,
                Entries: [
                  { Id: 'a', MessageBody: 'x' },
                  { Id: 'a', MessageBody: 'y' },
                ],
              }),
            ),
          )
        ).name,
      ).toBe('BatchEntryIdsNotDistinct');
      expect((await thrown(sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [] })))).name).toBe(
        'EmptyBatchRequest',
      );
      expect(
        (
          await thrown(
            sqs.send(
              new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a b', MessageBody: 'x' }] }),
            ),
          )
        ).name,
      ).toBe('InvalidBatchEntryId');

      // The delayed one keeps its MessageId when it becomes due.
      const messages = await receiveAll(url, 2);
      expect(messages.map((m) => m.Body).sort()).toEqual(['one', 'two']);
      const delayed = messages.find((m) => m.Body === 'two');
      expect(delayed?.MessageId).toBe(result.Successful?.[1]?.MessageId);
      expect(delayed?.MessageId).toMatch(/^[0-9a-f-]{36}$/);
      const deleted = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: [
            ...messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle as string })),
            { Id: 'junk', ReceiptHandle: 'garbage' },
          ],
        }),
      );
      expect(deleted.Successful).toEqual([{ Id: 'd0' }, { Id: 'd1' }]);
      expect(deleted.Failed).toEqual([
        {
          Id: 'junk',
          SenderFault: true,
          Code: 'ReceiptHandleIsInvalid',
          Message: 'The input receipt handle "garbage" is not a valid receipt handle.',
        },
      ]);
    });

    /** Receives until `n` messages came (long polls of up to 5 s each). */
    async function receiveAll(url: string, n: number) {
      const out = [];
      const deadline = Date.now() + 30_000;
      while (out.length < n && Date.now() < deadline) {
        const { Messages } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 5 }),
        );
        out.push(...(Messages ?? []));
      }
      return out;
    }

    it('validates receive parameters as SQS does', async () => {
      const url = await create('recv');
      const cases: [Record<string, unknown>, string][] = [
        [
          { MaxNumberOfMessages: 11 },
          'Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.',
        ],
        [
          { MaxNumberOfMessages: 0 },
          'Value 0 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.',
        ],
        [
          { WaitTimeSeconds: 21 },
          'Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.',
        ],
        [
          { VisibilityTimeout: -1 },
          'Value -1 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided.',
        ],
      ];
      for (const [input, message] of cases) {
        const error = await thrown(sqs.send(new ReceiveMessageCommand({ QueueUrl: url, ...input })));
        expect(error.name).toBe('InvalidParameterValue');
        expect(error.message).toBe(message);
      }
      expect(
        (
          await thrown(
            sqs.send(
              new ReceiveMessageCommand({ QueueUrl: url, MessageSystemAttributeNames: ['Colour' as never] }),
            ),
          )
        ).name,
      ).toBe('InvalidAttributeName');
      expect(
        (await thrown(sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: 'garbage' })))).name,
      ).toBe('ReceiptHandleIsInvalid');
    });

    it('returns a long poll as soon as a message arrives', async () => {
      const url = await create('poll');
      const started = Date.now();
      const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 20 }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'arrived' }));
      const { Messages } = await polling;
      expect(Messages?.map((m) => m.Body)).toEqual(['arrived']);
      // Well before the 20 s wait: it woke on the arrival.
      expect(Date.now() - started).toBeLessThan(15_000);
    });

    it('answers a retried ReceiveRequestAttemptId with the same messages and receipt handles', async () => {
      const url = await create('attempt');
      for (const body of ['a', 'b', 'c']) {
        await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
      }
      const receive = (client: SQSClient, attempt: string) =>
        client.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 2,
            ReceiveRequestAttemptId: attempt,
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          }),
        );
      const first = (await receive(sqs, 'attempt-1')).Messages ?? [];
      expect(first).toHaveLength(2);
      // The answer was lost: the retry gets the same deliveries, counted once.
      const retried = (await receive(sqs, 'attempt-1')).Messages ?? [];
      expect(retried.map((m) => [m.MessageId, m.ReceiptHandle])).toEqual(
        first.map((m) => [m.MessageId, m.ReceiptHandle]),
      );
      expect(retried.map((m) => m.Attributes)).toEqual([
        { ApproximateReceiveCount: '1' },
        { ApproximateReceiveCount: '1' },
      ]);
      // Another caller's attempt of the same id is its own: it gets the third message.
      const other = (await receive(stack().client('consume'), 'attempt-1')).Messages ?? [];
      expect(other.map((m) => m.Body)).toEqual(['c']);
      // Once one of the attempt's messages is deleted, a retry receives as usual: nothing is left.
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: first[0]?.ReceiptHandle as string }),
      );
      expect((await receive(sqs, 'attempt-1')).Messages ?? []).toEqual([]);
      // The handles of the first answer still act on their deliveries.
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: first[1]?.ReceiptHandle as string }),
      );
      const counts = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      expect(counts.Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('1');
    });

    it("keeps a message received with its own VisibilityTimeout invisible past the queue's", async () => {
      const url = await create('own-visibility', { VisibilityTimeout: '1' });
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'v' }));
      const [got] =
        (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 60 }))).Messages ?? [];
      expect(got?.Body).toBe('v');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? []).toEqual([]);
    });

    it('makes a message visible again at once or later, and counts its receives', async () => {
      const url = await create('vis');
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'v' }));
      const [first] = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? [];
      expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? []).toEqual([]);
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: first?.ReceiptHandle as string,
          VisibilityTimeout: 0,
        }),
      );
      const [second] =
        (
          await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: url,
              MessageSystemAttributeNames: ['ApproximateReceiveCount'],
              VisibilityTimeout: 1,
            }),
          )
        ).Messages ?? [];
      expect(second?.MessageId).toBe(first?.MessageId);
      expect(second?.Attributes).toEqual({ ApproximateReceiveCount: '2' });
      // Its own VisibilityTimeout of 1 s: back within a long poll.
      const [third] =
        (
          await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: url,
              WaitTimeSeconds: 10,
              MessageSystemAttributeNames: ['ApproximateReceiveCount'],
            }),
          )
        ).Messages ?? [];
      expect(third?.Attributes).toEqual({ ApproximateReceiveCount: '3' });

      // The stale handles neither change the newer delivery's visibility nor delete it.
      const stale = await thrown(
        sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: url,
            ReceiptHandle: first?.ReceiptHandle as string,
            VisibilityTimeout: 0,
          }),
        ),
      );
      expect(stale.name).toBe('InvalidParameterValue');
      expect(stale.message).toMatch(/Reason: The receipt handle has expired\.$/);
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: second?.ReceiptHandle as string }),
      );
      const counts = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      expect(counts.Attributes).toEqual({ ApproximateNumberOfMessagesNotVisible: '1' });

      const batch = await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: url,
          Entries: [
            { Id: 'new', ReceiptHandle: third?.ReceiptHandle as string, VisibilityTimeout: 60 },
            { Id: 'old', ReceiptHandle: first?.ReceiptHandle as string, VisibilityTimeout: 60 },
            { Id: 'big', ReceiptHandle: third?.ReceiptHandle as string, VisibilityTimeout: 43_201 },
          ],
        }),
      );
      expect(batch.Successful).toEqual([{ Id: 'new' }]);
      expect(batch.Failed?.map((f) => [f.Id, f.Code])).toEqual([
        ['big', 'InvalidParameterValue'],
        ['old', 'InvalidParameterValue'],
      ]);
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: third?.ReceiptHandle as string }),
      );
      const gone = await thrown(
        sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: url,
            ReceiptHandle: third?.ReceiptHandle as string,
            VisibilityTimeout: 5,
          }),
        ),
      );
      expect(gone.message).toMatch(
        /Reason: Message does not exist or is not available for visibility timeout change\.$/,
      );
      const after = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
      expect(after.Attributes).toMatchObject({
        ApproximateNumberOfMessages: '0',
        ApproximateNumberOfMessagesNotVisible: '0',
      });
    });

    it('purges every message a queue holds', async () => {
      const url = await create('purge');
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: ['a', 'b', 'c'].map((Id) => ({ Id, MessageBody: Id })),
        }),
      );
      const [held] = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? [];
      await sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
      expect(
        (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }))).Messages ??
          [],
      ).toEqual([]);
      const counts = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
      );
      expect(counts.Attributes).toMatchObject({
        ApproximateNumberOfMessages: '0',
        ApproximateNumberOfMessagesNotVisible: '0',
      });
      // A handle from before the purge deletes nothing and fails nothing.
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: held?.ReceiptHandle as string }),
      );
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'after' }));
      expect((await receiveAll(url, 1)).map((m) => m.Body)).toEqual(['after']);
    });
  });

  describe.skipIf(skip !== undefined)('FIFO queues', () => {
    it('delivers each group in order, one message of a group in flight at a time', async () => {
      const url = await create('order', undefined, true);
      const entries = [
        ['a1', 'A'],
        ['b1', 'B'],
        ['a2', 'A'],
        ['a3', 'A'],
        ['b2', 'B'],
      ].map(([body, group]) => ({
        Id: body as string,
        MessageBody: body as string,
        MessageGroupId: group as string,
        MessageDeduplicationId: body as string,
      }));
      const sent = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
      const sequences = sent.Successful?.map((e) => BigInt(e.SequenceNumber as string)) ?? [];
      expect(sequences).toHaveLength(5);
      expect([...sequences].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequences);

      const seen: { A: string[]; B: string[] } = { A: [], B: [] };
      for (let round = 0; round < 10 && seen.A.length + seen.B.length < 5; round++) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        const groups = Messages.map((m) => m.Attributes?.MessageGroupId as string);
        expect(new Set(groups).size).toBe(groups.length);
        for (const message of Messages) {
          seen[message.Attributes?.MessageGroupId as 'A' | 'B'].push(message.Body as string);
          expect(message.Attributes?.MessageDeduplicationId).toBe(message.Body);
          expect(message.Attributes?.SequenceNumber).toMatch(/^\d+$/);
          await sqs.send(
            new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle as string }),
          );
        }
      }
      expect(seen).toEqual({ A: ['a1', 'a2', 'a3'], B: ['b1', 'b2'] });
    });

    it('deduplicates a MessageDeduplicationId within the interval, answering the first MessageId', async () => {
      const url = await create('dedup', undefined, true);
      const first = await sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: 'once',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd-1',
        }),
      );
      const again = await sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: 'twice',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd-1',
        }),
      );
      expect(again.MessageId).toBe(first.MessageId);
      // The answer's MD5 is the sent body's (the SDK checks it).
      expect(again.MD5OfMessageBody).toBe(createHash('md5').update('twice').digest('hex'));
      const attributes = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessages', 'FifoQueue', 'ContentBasedDeduplication'],
        }),
      );
      expect(attributes.Attributes).toEqual({
        ApproximateNumberOfMessages: '1',
        FifoQueue: 'true',
        ContentBasedDeduplication: 'false',
      });
      const noGroup = await thrown(
        sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageDeduplicationId: 'd' })),
      );
      expect(noGroup.name).toBe('MissingParameter');
      expect(noGroup.message).toBe('The request must contain the parameter MessageGroupId.');
      const noDedup = await thrown(
        sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageGroupId: 'g' })),
      );
      expect(noDedup.message).toBe(
        'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
      );
      const delayed = await thrown(
        sqs.send(
          new SendMessageCommand({
            QueueUrl: url,
            MessageBody: 'x',
            MessageGroupId: 'g',
            MessageDeduplicationId: 'e',
            DelaySeconds: 1,
          }),
        ),
      );
      expect(delayed.name).toBe('InvalidParameterValue');
    });
  });
});
