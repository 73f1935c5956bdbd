/**
 * The real AWS SDK against message move tasks (docs/sqs-queue-needs.md §8, now the queue's
 * startMove/listMoves/cancelMove) and RedriveAllowPolicy: a dead-letter queue redriven back to each
 * message's source queue or to a DestinationArn, listing, cancelling, the rate, AWS's errors. On
 * the in-process engine and on real Redis over TCP, like test/sqs/sdk.test.ts.
 */
import {
  CancelMessageMoveTaskCommand,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SetQueueAttributesCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, uniqueQueue, useSqsStack } from './support/stack.ts';
import { thrown } from './support/thrown.ts';

describe.each(backends)('SQS message move tasks on $name', (backend) => {
  const { skip } = backend;
  const stack = useSqsStack(backend);
  let sqs: SQSClient;
  beforeAll(() => {
    if (skip === undefined) sqs = stack().client();
  });

  async function create(prefix: string, attributes?: Record<string, string>) {
    const QueueName = uniqueQueue(prefix);
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName, ...(attributes === undefined ? {} : { Attributes: attributes }) }),
    );
    const url = QueueUrl as string;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    return { url, name: QueueName, arn: Attributes?.QueueArn as string };
  }

  async function visible(url: string): Promise<number> {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    return Number(Attributes?.ApproximateNumberOfMessages);
  }

  /** A source queue whose `bodies` were received once and dead-lettered into a fresh DLQ. */
  async function deadLettered(bodies: string[]) {
    const dlq = await create('mv-dlq');
    const source = await create('mv-src', {
      VisibilityTimeout: '0',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 1 }),
    });
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: source.url,
        Entries: bodies.map((body, i) => ({ Id: `m${i}`, MessageBody: body })),
      }),
    );
    const ids = (sent.Successful ?? []).map((entry) => entry.MessageId as string);
    const first = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: source.url, MaxNumberOfMessages: 10 }),
    );
    expect(first.Messages?.length).toBe(bodies.length);
    // The next receive finds them received maxReceiveCount times: dead-lettered, moved to the DLQ.
    const second = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: source.url, MaxNumberOfMessages: 10 }),
    );
    expect(second.Messages ?? []).toEqual([]);
    for (let i = 0; i < 50 && (await visible(dlq.url)) < bodies.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await visible(dlq.url)).toBe(bodies.length);
    return { dlq, source, ids };
  }

  async function receiveAll(url: string) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    return Messages;
  }

  async function tasks(arn: string, MaxResults?: number) {
    const { Results = [] } = await sqs.send(
      new ListMessageMoveTasksCommand({
        SourceArn: arn,
        ...(MaxResults === undefined ? {} : { MaxResults }),
      }),
    );
    return Results;
  }

  describe.skipIf(skip !== undefined)('StartMessageMoveTask', () => {
    it('moves a dead-letter queue back to each message source queue, keeping bodies and MessageIds', async () => {
      const { dlq, source, ids } = await deadLettered(['a', 'b', 'c']);
      const before = Date.now();
      const { TaskHandle } = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn }));
      expect(TaskHandle).toEqual(expect.any(String));
      const back = await receiveAll(source.url);
      expect(back.map((m) => m.Body).sort()).toEqual(['a', 'b', 'c']);
      expect(back.map((m) => m.MessageId).sort()).toEqual([...ids].sort());
      expect(await visible(dlq.url)).toBe(0);
      const [task, ...older] = await tasks(dlq.arn);
      expect(older).toEqual([]);
      expect(task).toMatchObject({
        Status: 'COMPLETED',
        SourceArn: dlq.arn,
        ApproximateNumberOfMessagesMoved: 3,
        ApproximateNumberOfMessagesToMove: 3,
      });
      // Only a running task shows its handle; no destination was given.
      expect(task?.TaskHandle).toBeUndefined();
      expect(task?.DestinationArn).toBeUndefined();
      expect(task?.StartedTimestamp).toBeGreaterThanOrEqual(before - 1000);
      expect(task?.StartedTimestamp).toBeLessThanOrEqual(Date.now());
    });

    it('moves a dead-letter queue into a DestinationArn instead', async () => {
      const { dlq, source } = await deadLettered(['x', 'y']);
      const other = await create('mv-dest');
      await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn, DestinationArn: other.arn }));
      expect((await receiveAll(other.url)).map((m) => m.Body).sort()).toEqual(['x', 'y']);
      expect(await receiveAll(source.url)).toEqual([]);
      expect(await tasks(dlq.arn)).toMatchObject([
        { Status: 'COMPLETED', DestinationArn: other.arn, ApproximateNumberOfMessagesMoved: 2 },
      ]);
    });

    it('keeps to MaxNumberOfMessagesPerSecond, allows one task at a time, cancels, lists newest first', async () => {
      const { dlq, source, ids } = await deadLettered(['1', '2', '3', '4', '5']);
      const { TaskHandle } = await sqs.send(
        new StartMessageMoveTaskCommand({ SourceArn: dlq.arn, MaxNumberOfMessagesPerSecond: 1 }),
      );
      // One second's worth at once, the rest as the sweep finds the rate allows.
      const [running] = await tasks(dlq.arn);
      expect(running).toMatchObject({
        Status: 'RUNNING',
        TaskHandle,
        MaxNumberOfMessagesPerSecond: 1,
        ApproximateNumberOfMessagesMoved: 1,
        ApproximateNumberOfMessagesToMove: 5,
      });
      const busy = await thrown(sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn })));
      expect(busy.name).toBe('InvalidParameterValue');
      expect(busy.message).toBe(
        'There is already a task running. Only one active task is allowed for a source queue arn at a given time.',
      );
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const swept = await fetch(`${stack().url}/v1/sweep`, {
        method: 'POST',
        headers: { authorization: 'Bearer sqs-suite-token' },
      });
      expect(swept.status).toBe(200);
      const [later] = await tasks(dlq.arn);
      expect(later?.Status).toBe('RUNNING');
      // At least one more (1.1 s later), and fewer than all five: the rate holds.
      expect(later?.ApproximateNumberOfMessagesMoved).toBeGreaterThanOrEqual(2);
      expect(later?.ApproximateNumberOfMessagesMoved).toBeLessThan(5);
      const movedSoFar = later?.ApproximateNumberOfMessagesMoved as number;

      const cancelled = await sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle }));
      expect(cancelled.ApproximateNumberOfMessagesMoved).toBe(movedSoFar);
      expect(await tasks(dlq.arn)).toMatchObject([
        { Status: 'CANCELLED', ApproximateNumberOfMessagesMoved: movedSoFar },
      ]);
      const again = await thrown(sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle })));
      expect(again.name).toBe('ResourceNotFoundException');
      expect(await visible(dlq.url)).toBe(5 - movedSoFar);

      // A new task moves the rest; both are listed, newest first.
      await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn }));
      const listed = await tasks(dlq.arn, 10);
      expect(listed.map((t) => [t.Status, t.ApproximateNumberOfMessagesMoved])).toEqual([
        ['COMPLETED', 5 - movedSoFar],
        ['CANCELLED', movedSoFar],
      ]);
      expect((await tasks(dlq.arn)).length).toBe(1);
      const back = [...(await receiveAll(source.url)), ...(await receiveAll(source.url))];
      expect(back.map((m) => m.MessageId).sort()).toEqual([...ids].sort());
    });

    it('answers AWS errors for a source that is no DLQ, a missing queue, a bad rate and an unknown handle', async () => {
      const plain = await create('mv-plain');
      const notDlq = await thrown(sqs.send(new StartMessageMoveTaskCommand({ SourceArn: plain.arn })));
      expect(notDlq.name).toBe('InvalidParameterValue');
      expect(notDlq.message).toBe('Source queue must be configured as a Dead Letter Queue.');
      expect(notDlq.$metadata.httpStatusCode).toBe(400);

      const missing = await thrown(
        sqs.send(new StartMessageMoveTaskCommand({ SourceArn: `${plain.arn}-missing` })),
      );
      expect(missing.name).toBe('ResourceNotFoundException');
      expect(missing.$metadata.httpStatusCode).toBe(404);

      const { dlq } = await deadLettered(['r']);
      const rate = await thrown(
        sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn, MaxNumberOfMessagesPerSecond: 501 })),
      );
      expect(rate.name).toBe('InvalidParameterValue');
      expect(await tasks(dlq.arn)).toEqual([]);
      expect(await tasks(plain.arn)).toEqual([]);

      for (const TaskHandle of ['garbage', `${dlq.name}:000000000000001:00`]) {
        const unknown = await thrown(sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle })));
        expect(unknown.name).toBe('ResourceNotFoundException');
        expect(unknown.$metadata.httpStatusCode).toBe(404);
      }
    });
  });

  describe.skipIf(skip !== undefined)('RedriveAllowPolicy', () => {
    it('refuses a RedrivePolicy naming a DLQ that denies all, or lists other sources only', async () => {
      const denying = await create('deny-dlq', {
        RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'denyAll' }),
      });
      const source = await create('deny-src');
      const policy = (arn: string) => JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 3 });
      const denied = await thrown(
        sqs.send(
          new SetQueueAttributesCommand({
            QueueUrl: source.url,
            Attributes: { RedrivePolicy: policy(denying.arn) },
          }),
        ),
      );
      expect(denied.name).toBe('InvalidParameterValue');
      expect(denied.message).toContain('for parameter RedrivePolicy is invalid');
      const atCreation = await thrown(
        sqs.send(
          new CreateQueueCommand({
            QueueName: uniqueQueue('deny-new'),
            Attributes: { RedrivePolicy: policy(denying.arn) },
          }),
        ),
      );
      expect(atCreation.name).toBe('InvalidParameterValue');

      const other = await create('deny-other');
      const byQueue = await create('byq-dlq', {
        RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'byQueue', sourceQueueArns: [source.arn] }),
      });
      await sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: source.url,
          Attributes: { RedrivePolicy: policy(byQueue.arn) },
        }),
      );
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: source.url, AttributeNames: ['RedrivePolicy'] }),
      );
      expect(JSON.parse(Attributes?.RedrivePolicy as string).deadLetterTargetArn).toBe(byQueue.arn);
      const notListed = await thrown(
        sqs.send(
          new SetQueueAttributesCommand({
            QueueUrl: other.url,
            Attributes: { RedrivePolicy: policy(byQueue.arn) },
          }),
        ),
      );
      expect(notListed.name).toBe('InvalidParameterValue');

      const allowing = await create('allow-dlq', {
        RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'allowAll' }),
      });
      await sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: other.url,
          Attributes: { RedrivePolicy: policy(allowing.arn) },
        }),
      );
    });
  });
});
