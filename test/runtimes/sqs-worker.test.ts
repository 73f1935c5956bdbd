/**
 * The SQS endpoint in real workerd (`wrangler dev`) against the engine's REST front, driven by the
 * real AWS SDK (@aws-sdk/client-sqs, its MD5 checks on): create, send a batch with attributes,
 * long-poll receive, change a visibility, a stale receipt handle, delete a batch, the queue's
 * counts, and AWS's refusals of an unknown key and of a key whose scope does not allow the action.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import { thrown } from '../sqs/support/thrown.ts';
import type { Child } from './support/processes.ts';
import { startWranglerDev } from './support/wrangler-dev.ts';

const admin = { accessKeyId: 'AKIDWORKERADMIN', secretAccessKey: 'worker-admin-secret' };
const consumer = { accessKeyId: 'AKIDWORKERCONSUME', secretAccessKey: 'worker-consume-secret' };
let engine: EngineServer;
let worker: Child | undefined;
let base: string;
let dir: string;
const clients: SQSClient[] = [];

function client(credentials: { accessKeyId: string; secretAccessKey: string }): SQSClient {
  const sqs = new SQSClient({ endpoint: `${base}/sqs`, region: 'us-east-1', credentials });
  clients.push(sqs);
  return sqs;
}

beforeAll(async () => {
  engine = await startEngineServer({ port: 0, token: 'engine-token' });
  dir = await mkdtemp(join(tmpdir(), 'sqs-worker-test-'));
  const started = await startWranglerDev({
    vars: {
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
      API_TOKENS: 'admin:sqs-worker-admin-token',
      SQS_CREDENTIALS: [
        `${admin.accessKeyId}:${admin.secretAccessKey}:admin`,
        `${consumer.accessKeyId}:${consumer.secretAccessKey}:consume`,
      ].join(','),
    },
    dir,
    readyPath: '/healthz',
    ready: (res) => res.status === 200,
  });
  worker = started.child;
  base = started.base;
}, 120_000);

afterAll(async () => {
  for (const sqs of clients) sqs.destroy();
  await worker?.kill();
  await engine?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the SQS API in workerd', () => {
  it('sends, receives, changes visibility and deletes through the AWS SDK, the latest handle winning', async () => {
    const sqs = client(admin);
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: 'worker-sqs-orders', Attributes: { VisibilityTimeout: '30' } }),
    );
    expect(QueueUrl).toBe(`${base}/sqs/000000000000/worker-sqs-orders`);
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: ['a', 'b', 'c'].map((id) => ({
          Id: id,
          MessageBody: `body ${id} ✓`,
          MessageAttributes: { kind: { DataType: 'String', StringValue: `kind-${id}` } },
        })),
      }),
    );
    expect(sent.Successful?.map((entry) => entry.Id)).toEqual(['a', 'b', 'c']);
    expect(sent.Failed ?? []).toEqual([]);

    // The SDK checks the MD5 of each body and of its attributes itself.
    const first = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    const messages = first.Messages ?? [];
    expect(messages.map((m) => m.Body).sort()).toEqual(['body a ✓', 'body b ✓', 'body c ✓']);
    expect(messages.map((m) => m.MessageAttributes?.kind?.StringValue).sort()).toEqual([
      'kind-a',
      'kind-b',
      'kind-c',
    ]);
    expect(messages.map((m) => m.Attributes?.ApproximateReceiveCount)).toEqual(['1', '1', '1']);

    // One made visible at once and received again: its first handle is stale from then on.
    const [again, ...rest] = messages;
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: again?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const second = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MaxNumberOfMessages: 10,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    expect(second.Messages?.map((m) => [m.MessageId, m.Attributes?.ApproximateReceiveCount])).toEqual([
      [again?.MessageId, '2'],
    ]);
    // The stale handle deletes nothing (AWS answers 200); the newer delivery stays in flight.
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: again?.ReceiptHandle }));
    const inFlight = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessagesNotVisible'] }),
    );
    expect(inFlight.Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('3');

    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: [...rest, ...(second.Messages ?? [])].map((m, i) => ({
          Id: `d${i}`,
          ReceiptHandle: m.ReceiptHandle,
        })),
      }),
    );
    expect(deleted.Successful?.map((entry) => entry.Id)).toEqual(['d0', 'd1', 'd2']);
    const counts = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(counts.Attributes).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  });

  it("answers an unknown key and a scope that does not allow the action in AWS's error shapes", async () => {
    const sqs = client(admin);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'worker-sqs-refusals' }));
    const unknown = await thrown(
      client({ accessKeyId: 'AKIDNOBODY', secretAccessKey: 'nope' }).send(
        new SendMessageCommand({ QueueUrl, MessageBody: 'x' }),
      ),
    );
    expect(unknown.$metadata.httpStatusCode).toBe(403);
    expect(unknown.name).toBe('InvalidClientTokenId');
    const denied = await thrown(
      client(consumer).send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' })),
    );
    expect(denied.$metadata.httpStatusCode).toBe(403);
    expect(denied.name).toBe('AccessDenied');
  });
});
