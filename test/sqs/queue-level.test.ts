/**
 * The real AWS SDK against what phase 2 of issue 28 added to the queue (docs/sqs-queue-needs.md):
 * queue metadata (every attribute stored and effective, tags, timestamps), sends only into an
 * existing queue, purging delayed messages, dead-letter queues and message move tasks. On the
 * in-process engine and on real Redis over TCP, like test/sqs/sdk.test.ts.
 */
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListQueuesCommand,
  ListQueueTagsCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  type SQSClient,
  TagQueueCommand,
  UntagQueueCommand,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, uniqueQueue, useSqsStack } from './support/stack.ts';
import { thrown } from './support/thrown.ts';

describe.each(backends)('SQS queue-level features on $name', (backend) => {
  const { skip } = backend;
  const stack = useSqsStack(backend);
  let sqs: SQSClient;
  beforeAll(() => {
    if (skip === undefined) sqs = stack().client();
  });

  async function create(
    prefix: string,
    attributes?: Record<string, string>,
    fifo = false,
    tags?: Record<string, string>,
  ): Promise<{ url: string; name: string }> {
    const QueueName = uniqueQueue(prefix, fifo);
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName,
        Attributes: { ...(fifo ? { FifoQueue: 'true' } : {}), ...attributes },
        ...(tags === undefined ? {} : { tags }),
      }),
    );
    return { url: QueueUrl as string, name: QueueName };
  }

  async function attributesOf(url: string, names: string[] = ['All']): Promise<Record<string, string>> {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: names as never }),
    );
    return Attributes ?? {};
  }

  describe.skipIf(skip !== undefined)('queue metadata (§5)', () => {
    const policy = JSON.stringify({ Version: '2012-10-17', Statement: [] });
    const standard = {
      VisibilityTimeout: '40',
      MessageRetentionPeriod: '600',
      DelaySeconds: '3',
      MaximumMessageSize: '2048',
      ReceiveMessageWaitTimeSeconds: '4',
      Policy: policy,
      KmsMasterKeyId: 'alias/aws/sqs',
      KmsDataKeyReusePeriodSeconds: '120',
      SqsManagedSseEnabled: 'false',
      RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'denyAll' }),
    };

    it('stores every attribute given at creation and answers them back, timestamps in seconds', async () => {
      const before = Math.floor(Date.now() / 1000);
      const { url } = await create('meta-all', standard);
      const got = await attributesOf(url);
      expect(got).toMatchObject(standard);
      const created = Number(got.CreatedTimestamp);
      expect(created).toBeGreaterThanOrEqual(before - 1);
      expect(created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
      expect(Number(got.LastModifiedTimestamp)).toBe(created);
      // The same attributes again: the queue's URL; one differing: QueueNameExists.
      const name = url.slice(url.lastIndexOf('/') + 1);
      expect(
        (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: standard }))).QueueUrl,
      ).toBe(url);
      const clash = await thrown(
        sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { ...standard, DelaySeconds: '4' } })),
      );
      expect(clash.name).toBe('QueueNameExists');
      expect(clash.message).toMatch(/attribute DelaySeconds$/);
    });

    it('sets every attribute with SetQueueAttributes, back to defaults too, and moves LastModifiedTimestamp', async () => {
      const { url } = await create('meta-set');
      const created = Number((await attributesOf(url, ['CreatedTimestamp'])).CreatedTimestamp);
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: standard }));
      const got = await attributesOf(url);
      expect(got).toMatchObject(standard);
      expect(Number(got.LastModifiedTimestamp)).toBeGreaterThanOrEqual(created);
      await sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: url,
          Attributes: { DelaySeconds: '0', Policy: '', KmsMasterKeyId: '', RedriveAllowPolicy: '' },
        }),
      );
      const reset = await attributesOf(url);
      expect(reset.DelaySeconds).toBe('0');
      expect(reset.Policy).toBeUndefined();
      expect(reset.KmsMasterKeyId).toBeUndefined();
      expect(reset.KmsDataKeyReusePeriodSeconds).toBeUndefined();
      expect(reset.RedriveAllowPolicy).toBeUndefined();
      expect(reset.MaximumMessageSize).toBe('2048');
    });

    it('stores the FIFO attributes', async () => {
      const fifo = {
        ContentBasedDeduplication: 'true',
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
      };
      const { url } = await create('meta-fifo', fifo, true);
      expect(await attributesOf(url)).toMatchObject({ FifoQueue: 'true', ...fifo });
      await sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: url,
          Attributes: { FifoThroughputLimit: 'perQueue', DeduplicationScope: 'queue' },
        }),
      );
      expect(await attributesOf(url, ['DeduplicationScope', 'FifoThroughputLimit'])).toEqual({
        DeduplicationScope: 'queue',
        FifoThroughputLimit: 'perQueue',
      });
    });

    it('delays every send by the queue DelaySeconds unless the message gives its own', async () => {
      const { url } = await create('meta-delay', { DelaySeconds: '2' });
      const sent = Date.now();
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'late' }));
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'now', DelaySeconds: 0 }));
      const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
      expect(first.Messages?.map((m) => m.Body)).toEqual(['now']);
      expect(await attributesOf(url, ['ApproximateNumberOfMessagesDelayed'])).toEqual({
        ApproximateNumberOfMessagesDelayed: '1',
      });
      const later = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 20 }),
      );
      expect(later.Messages?.map((m) => m.Body)).toEqual(['late']);
      expect(Date.now() - sent).toBeGreaterThanOrEqual(1900);
    });

    it('long-polls a receive without WaitTimeSeconds for the queue ReceiveMessageWaitTimeSeconds', async () => {
      const { url } = await create('meta-wait', { ReceiveMessageWaitTimeSeconds: '2' });
      const started = Date.now();
      const empty = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }));
      expect(empty.Messages ?? []).toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      // A message arriving during the wait ends it.
      const waiting = sqs.send(new ReceiveMessageCommand({ QueueUrl: url }));
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'arrived' }));
      expect((await waiting).Messages?.map((m) => m.Body)).toEqual(['arrived']);
    });

    it('refuses a message longer than the queue MaximumMessageSize', async () => {
      const { url } = await create('meta-size', { MaximumMessageSize: '1024' });
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x'.repeat(1024) }));
      const error = await thrown(
        sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x'.repeat(1025) })),
      );
      expect(error.name).toBe('InvalidParameterValue');
      expect(error.message).toBe(
        'One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.',
      );
      expect(await attributesOf(url, ['ApproximateNumberOfMessages'])).toEqual({
        ApproximateNumberOfMessages: '1',
      });
    });

    it('deduplicates identical bodies with ContentBasedDeduplication, per group with DeduplicationScope messageGroup', async () => {
      const { url } = await create('meta-cbd', { ContentBasedDeduplication: 'true' }, true);
      const send = (body: string, group: string) =>
        sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageGroupId: group }));
      const a = await send('same', 'g1');
      const b = await send('same', 'g2');
      const c = await send('other', 'g1');
      expect(b.MessageId).toBe(a.MessageId);
      expect(c.MessageId).not.toBe(a.MessageId);
      expect(await attributesOf(url, ['ApproximateNumberOfMessages'])).toEqual({
        ApproximateNumberOfMessages: '2',
      });

      const scoped = await create(
        'meta-scope',
        { ContentBasedDeduplication: 'true', DeduplicationScope: 'messageGroup' },
        true,
      );
      const send2 = (body: string, group: string) =>
        sqs.send(new SendMessageCommand({ QueueUrl: scoped.url, MessageBody: body, MessageGroupId: group }));
      const x = await send2('same', 'g1');
      const y = await send2('same', 'g2');
      const z = await send2('same', 'g1');
      expect(y.MessageId).not.toBe(x.MessageId);
      expect(z.MessageId).toBe(x.MessageId);
      expect(await attributesOf(scoped.url, ['ApproximateNumberOfMessages'])).toEqual({
        ApproximateNumberOfMessages: '2',
      });
    });

    it('keeps tags: at creation, added, listed, removed, at most 50', async () => {
      const { url } = await create('meta-tags', undefined, false, { team: 'core', 'cost:centre': 'a b' });
      expect((await sqs.send(new ListQueueTagsCommand({ QueueUrl: url }))).Tags).toEqual({
        team: 'core',
        'cost:centre': 'a b',
      });
      const modified = (await attributesOf(url, ['LastModifiedTimestamp'])).LastModifiedTimestamp;
      await sqs.send(new TagQueueCommand({ QueueUrl: url, Tags: { team: 'edge', env: 'prod' } }));
      await sqs.send(new UntagQueueCommand({ QueueUrl: url, TagKeys: ['cost:centre', 'absent'] }));
      expect((await sqs.send(new ListQueueTagsCommand({ QueueUrl: url }))).Tags).toEqual({
        team: 'edge',
        env: 'prod',
      });
      // Tags are not attributes: LastModifiedTimestamp stays.
      expect((await attributesOf(url, ['LastModifiedTimestamp'])).LastModifiedTimestamp).toBe(modified);
      const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, String(i)]));
      const tooMany = await thrown(sqs.send(new TagQueueCommand({ QueueUrl: url, Tags: many })));
      expect(tooMany.name).toBe('InvalidParameterValue');
      expect(
        Object.keys((await sqs.send(new ListQueueTagsCommand({ QueueUrl: url }))).Tags ?? {}),
      ).toHaveLength(2);
      await sqs.send(
        new TagQueueCommand({ QueueUrl: url, Tags: Object.fromEntries(Object.entries(many).slice(0, 48)) }),
      );
      expect(
        Object.keys((await sqs.send(new ListQueueTagsCommand({ QueueUrl: url }))).Tags ?? {}),
      ).toHaveLength(50);
      const fiftyOne = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, String(i)]));
      const atCreation = await thrown(
        sqs.send(new CreateQueueCommand({ QueueName: uniqueQueue('meta-tags51'), tags: fiftyOne })),
      );
      expect(atCreation.name).toBe('InvalidParameterValue');
    });

    it('forgets a deleted queue metadata', async () => {
      const { url, name } = await create('meta-gone', { DelaySeconds: '7' }, false, { t: 'v' });
      await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
      expect((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: name }))).QueueUrls).toBeUndefined();
      await sqs.send(new CreateQueueCommand({ QueueName: name }));
      expect((await attributesOf(url, ['DelaySeconds'])).DelaySeconds).toBe('0');
      expect((await sqs.send(new ListQueueTagsCommand({ QueueUrl: url }))).Tags).toBeUndefined();
    });
  });

  describe.skipIf(skip !== undefined)('sends into existing queues only (§6)', () => {
    it('answers QueueDoesNotExist to a send into a queue deleted a moment ago, creating nothing', async () => {
      const { url, name } = await create('gone');
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'before' }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
      const error = await thrown(sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'after' })));
      expect(error.name).toBe('QueueDoesNotExist');
      const batch = await thrown(
        sqs.send(
          new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', MessageBody: 'after' }] }),
        ),
      );
      expect(batch.name).toBe('QueueDoesNotExist');
      expect((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: name }))).QueueUrls).toBeUndefined();
      expect((await thrown(sqs.send(new GetQueueUrlCommand({ QueueName: name })))).name).toBe(
        'QueueDoesNotExist',
      );
    });
  });

  describe.skipIf(skip !== undefined)('purge (§9)', () => {
    it('removes delayed messages too', async () => {
      const { url } = await create('purge-delayed', { DelaySeconds: '1' });
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'queue delay' }));
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'own delay', DelaySeconds: 2 }));
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'now', DelaySeconds: 0 }));
      expect(
        await attributesOf(url, ['ApproximateNumberOfMessagesDelayed', 'ApproximateNumberOfMessages']),
      ).toEqual({
        ApproximateNumberOfMessagesDelayed: '2',
        ApproximateNumberOfMessages: '1',
      });
      await sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
      expect(
        await attributesOf(url, ['ApproximateNumberOfMessagesDelayed', 'ApproximateNumberOfMessages']),
      ).toEqual({
        ApproximateNumberOfMessagesDelayed: '0',
        ApproximateNumberOfMessages: '0',
      });
      // Past both delays, nothing comes.
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 3 }),
      );
      expect(Messages ?? []).toEqual([]);
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'after', DelaySeconds: 0 }));
      expect(
        (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 5 }))).Messages?.map(
          (m) => m.Body,
        ),
      ).toEqual(['after']);
    });
  });

  describe.skipIf(skip !== undefined)('dead-letter queues (§7)', () => {
    it('moves a message received maxReceiveCount times into the RedrivePolicy queue, with its source ARN', async () => {
      const dlq = await create('dlq');
      const dlqArn = (await attributesOf(dlq.url, ['QueueArn'])).QueueArn as string;
      const source = await create('src', {
        VisibilityTimeout: '0',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
      });
      const sourceArn = (await attributesOf(source.url, ['QueueArn'])).QueueArn as string;
      expect(JSON.parse((await attributesOf(source.url, ['RedrivePolicy'])).RedrivePolicy as string)).toEqual(
        {
          deadLetterTargetArn: dlqArn,
          maxReceiveCount: 2,
        },
      );
      const sent = await sqs.send(
        new SendMessageCommand({
          QueueUrl: source.url,
          MessageBody: 'poison',
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'bad' } },
        }),
      );
      for (const n of [1, 2]) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: source.url,
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          }),
        );
        expect(Messages.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([
          ['poison', String(n)],
        ]);
      }
      expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: source.url }))).Messages ?? []).toEqual(
        [],
      );
      const { Messages: dead = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: dlq.url,
          WaitTimeSeconds: 5,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({
        MessageId: sent.MessageId,
        Body: 'poison',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'bad' } },
      });
      expect(dead[0]?.Attributes?.DeadLetterQueueSourceArn).toBe(sourceArn);
      expect(dead[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
      expect(
        (await sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq.url }))).queueUrls,
      ).toEqual([source.url]);
      expect(
        (await sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: source.url }))).queueUrls,
      ).toEqual([]);
      // Removing the policy stops the moves: the source keeps its own dead letters again.
      await sqs.send(
        new SetQueueAttributesCommand({ QueueUrl: source.url, Attributes: { RedrivePolicy: '' } }),
      );
      expect(
        (await sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq.url }))).queueUrls,
      ).toEqual([]);
    });
  });
});
