/**
 * The SQS endpoint as a hostile network and odd clients see it: signature and scope refusals,
 * AWS's error shape on the wire, the Date header SDKs set their clock from, the root endpoint SDKs
 * use without an explicit one, the query protocol (form in, XML out) signed by the SDK's signer,
 * and the request size limit.
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { head, stalledRequest } from '../support/raw-http.ts';
import { sendSigned } from './support/signer.ts';
import { backends, keys, REGION, uniqueQueue, useSqsStack } from './support/stack.ts';
import { thrown } from './support/thrown.ts';

describe.each(backends)('SQS endpoint on $name', (backend) => {
  const { skip } = backend;
  const stack = useSqsStack(backend);
  let queueUrl: string;
  beforeAll(async () => {
    if (skip !== undefined) return;
    const created = await stack()
      .client()
      .send(new CreateQueueCommand({ QueueName: uniqueQueue('auth') }));
    queueUrl = created.QueueUrl as string;
  });

  describe.skipIf(skip !== undefined)('auth', () => {
    it('refuses a wrong secret and an unknown key with 403', async () => {
      const wrong = new SQSClient({
        endpoint: stack().endpoint,
        region: REGION,
        credentials: { accessKeyId: keys.admin.accessKeyId, secretAccessKey: 'not-the-secret' },
      });
      const bad = await thrown(wrong.send(new ListQueuesCommand({})));
      expect(bad.name).toBe('SignatureDoesNotMatch');
      expect(bad.$metadata.httpStatusCode).toBe(403);
      const stranger = new SQSClient({
        endpoint: stack().endpoint,
        region: REGION,
        credentials: { accessKeyId: 'AKIDSTRANGER', secretAccessKey: 'x' },
      });
      const unknown = await thrown(stranger.send(new ListQueuesCommand({})));
      expect(unknown.name).toBe('InvalidClientTokenId');
      expect(unknown.$metadata.httpStatusCode).toBe(403);
      wrong.destroy();
      stranger.destroy();
    });

    it('lets each key do what its scope allows and answers AccessDenied for the rest', async () => {
      const producer = stack().client('produce');
      const consumer = stack().client('consume');
      expect(
        (await producer.send(new GetQueueUrlCommand({ QueueName: queueUrl.split('/').pop() as string })))
          .QueueUrl,
      ).toBe(queueUrl);
      await producer.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'scoped' }));
      // One call at a time: a call started before the previous one's refusal was awaited would be a
      // rejection without a handler for as long as that takes.
      for (const call of [
        () => producer.send(new ReceiveMessageCommand({ QueueUrl: queueUrl })),
        () => producer.send(new CreateQueueCommand({ QueueName: uniqueQueue('nope') })),
        () => consumer.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' })),
        () => consumer.send(new CreateQueueCommand({ QueueName: uniqueQueue('nope') })),
      ]) {
        const denied = await thrown(call());
        expect(denied.name).toBe('AccessDenied');
        expect(denied.$metadata.httpStatusCode).toBe(403);
      }
      const { Messages } = await consumer.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, VisibilityTimeout: 0 }),
      );
      expect(Messages?.map((m) => m.Body)).toEqual(['scoped']);
      expect(
        (
          await consumer.send(
            new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
          )
        ).Attributes,
      ).toEqual({ QueueArn: `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}` });
    });

    it("does not open for the API's bearer tokens, and answers in AWS's error shape with a Date", async () => {
      const target = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' };
      const bearer = await fetch(`${stack().url}/sqs/`, {
        method: 'POST',
        headers: { ...target, authorization: 'Bearer sqs-suite-token' },
        body: '{}',
      });
      expect(bearer.status).toBe(400);
      expect(bearer.headers.get('x-amzn-query-error')).toBe('IncompleteSignature;Sender');
      const bare = await fetch(`${stack().url}/sqs`, { method: 'POST', headers: target, body: '{}' });
      expect(bare.status).toBe(403);
      expect(bare.headers.get('content-type')).toBe('application/x-amz-json-1.0');
      expect(bare.headers.get('x-amzn-query-error')).toBe('MissingAuthenticationToken;Sender');
      expect(bare.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
      expect(Math.abs(Date.parse(bare.headers.get('date') as string) - Date.now())).toBeLessThan(60_000);
      expect(await bare.json()).toEqual({
        __type: 'com.amazon.coral.service#MissingAuthenticationTokenException',
        message: 'Request is missing Authentication Token',
      });
    });

    it('refuses a request signed more than 15 minutes ago; an SDK with a wrong clock corrects it from Date', async () => {
      const stale = await sendSigned({
        url: `${stack().url}/sqs/`,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
        body: '{}',
        key: keys.admin,
        signingDate: new Date(Date.now() - 20 * 60_000),
      });
      expect(stale.status).toBe(403);
      expect(((await stale.json()) as { message: string }).message).toMatch(/^Signature expired: /);
      const skewed = new SQSClient({
        endpoint: stack().endpoint,
        region: REGION,
        credentials: keys.admin,
        systemClockOffset: -60 * 60_000,
      });
      // The first call is refused; its answer's Date sets the client's clock, so the next one passes.
      expect((await thrown(skewed.send(new ListQueuesCommand({})))).name).toBe('SignatureDoesNotMatch');
      expect((await skewed.send(new ListQueuesCommand({}))).$metadata.httpStatusCode).toBe(200);
      skewed.destroy();
    });

    it('answers a replayed body under the same signature only as the action itself allows (no nonce in SigV4)', async () => {
      const request = {
        url: `${stack().url}/sqs/`,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.GetQueueUrl' },
        body: JSON.stringify({ QueueName: queueUrl.split('/').pop() }),
        key: keys.consume,
      };
      const first = await sendSigned(request);
      expect(first.status).toBe(200);
      expect(((await first.json()) as { QueueUrl: string }).QueueUrl).toBe(queueUrl);
      const tampered = await fetch(`${stack().url}/sqs/`, {
        method: 'POST',
        headers: Object.fromEntries([...(await signedHeaders(request))].filter(([name]) => name !== 'host')),
        body: JSON.stringify({ QueueName: 'other' }),
      });
      expect(tampered.status).toBe(400);
      expect(tampered.headers.get('x-amzn-query-error')).toBe('XAmzContentSHA256Mismatch;Sender');
    });
  });

  /** The headers the SDK's signer puts on a request (by sending it once to a recorder). */
  async function signedHeaders(request: Parameters<typeof sendSigned>[0]): Promise<Headers> {
    const recorded: Headers[] = [];
    const original = globalThis.fetch;
    globalThis.fetch = (async (_url: unknown, init?: RequestInit) => {
      recorded.push(new Headers(init?.headers));
      return new Response('{}');
    }) as typeof fetch;
    try {
      await sendSigned(request);
    } finally {
      globalThis.fetch = original;
    }
    return recorded[0] as Headers;
  }

  describe.skipIf(skip !== undefined)('routing', () => {
    it('answers an SDK that has no endpoint and posts to the QueueUrl origin root', async () => {
      const rooted = new SQSClient({
        region: REGION,
        credentials: keys.admin,
        logger: { ...console, warn: () => undefined },
      });
      await rooted.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'via root' }));
      const attributes = await rooted.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      );
      expect(Number(attributes.Attributes?.ApproximateNumberOfMessages)).toBeGreaterThanOrEqual(1);
      rooted.destroy();
      // The root still answers what is not an SQS call as before.
      expect((await fetch(`${stack().url}/`, { method: 'POST', body: 'x' })).status).toBe(404);
    });

    it('names an unknown action InvalidAction, and refuses a body that is not JSON', async () => {
      const unknown = await sendSigned({
        url: `${stack().url}/sqs/`,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.FlyToTheMoon' },
        body: '{}',
        key: keys.admin,
      });
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toEqual({
        __type: 'com.amazon.coral.service#InvalidActionException',
        message: 'The action FlyToTheMoon is not valid for this endpoint.',
      });
      const broken = await sendSigned({
        url: `${stack().url}/sqs/`,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
        body: '{"QueueNamePrefix":',
        key: keys.admin,
      });
      expect(broken.status).toBe(400);
      expect(broken.headers.get('x-amzn-query-error')).toBe('SerializationException;Sender');
    });
  });

  describe.skipIf(skip !== undefined)('query protocol', () => {
    const form = (params: Record<string, string>) =>
      new URLSearchParams({ Version: '2012-11-05', ...params }).toString().replaceAll('%20', '+');
    const query = (params: Record<string, string>, key: (typeof keys)[keyof typeof keys] = keys.admin) =>
      sendSigned({
        url: `${stack().url}/sqs`,
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: form(params),
        key,
      });

    it('sends with attributes, receives with CR kept, deletes in a batch, all in XML', async () => {
      const body = 'line one\r\nline "two" & <three>';
      const sent = await query({
        Action: 'SendMessage',
        QueueUrl: queueUrl,
        MessageBody: body,
        'MessageAttribute.1.Name': 'City',
        'MessageAttribute.1.Value.DataType': 'String',
        'MessageAttribute.1.Value.StringValue': 'Any City',
      });
      expect(sent.status).toBe(200);
      expect(sent.headers.get('content-type')).toBe('text/xml');
      const sentXml = await sent.text();
      expect(sentXml).toContain(
        '<SendMessageResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><SendMessageResult>',
      );
      expect(sentXml).toContain(
        '<MD5OfMessageAttributes>0c32cb5c844c01fbd5b6b434b52cf670</MD5OfMessageAttributes>',
      );
      const received = await query({
        Action: 'ReceiveMessage',
        QueueUrl: queueUrl,
        MaxNumberOfMessages: '10',
        'AttributeName.1': 'All',
        'MessageAttributeName.1': 'All',
      });
      const xml = await received.text();
      const bodies = [...xml.matchAll(/<Body>([\s\S]*?)<\/Body>/g)].map((m) => m[1]);
      expect(bodies).toContain('line one&#xD;\nline &quot;two&quot; &amp; &lt;three&gt;');
      expect(xml).toContain(
        '<MessageAttribute><Name>City</Name><Value><DataType>String</DataType><StringValue>Any City</StringValue></Value></MessageAttribute>',
      );
      expect(xml).toMatch(/<Attribute><Name>ApproximateReceiveCount<\/Name><Value>1<\/Value><\/Attribute>/);
      const handles = [...xml.matchAll(/<ReceiptHandle>(.*?)<\/ReceiptHandle>/g)].map((m) => m[1] as string);
      expect(handles.length).toBeGreaterThanOrEqual(1);
      const entries: Record<string, string> = {};
      handles.forEach((handle, i) => {
        entries[`DeleteMessageBatchRequestEntry.${i + 1}.Id`] = `e${i}`;
        entries[`DeleteMessageBatchRequestEntry.${i + 1}.ReceiptHandle`] = handle;
      });
      const deleted = await query({ Action: 'DeleteMessageBatch', QueueUrl: queueUrl, ...entries });
      const deletedXml = await deleted.text();
      expect(
        deletedXml.match(/<DeleteMessageBatchResultEntry><Id>e\d+<\/Id><\/DeleteMessageBatchResultEntry>/g),
      ).toHaveLength(handles.length);
    });

    it('answers errors as XML with the legacy code and the status of the table, and takes GET', async () => {
      const missing = await query({ Action: 'GetQueueUrl', QueueName: uniqueQueue('absent') });
      expect(missing.status).toBe(400);
      const xml = await missing.text();
      expect(xml).toContain(
        '<Error><Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code><Message>The specified queue does not exist for this wsdl version.</Message><Detail/></Error>',
      );
      const denied = await query({ Action: 'CreateQueue', QueueName: uniqueQueue('x') }, keys.consume);
      expect(denied.status).toBe(403);
      expect(await denied.text()).toContain('<Code>AccessDenied</Code>');
      const listed = await sendSigned({
        method: 'GET',
        url: `${stack().url}/sqs?Action=ListQueues&Version=2012-11-05&QueueNamePrefix=auth`,
        headers: {},
        key: keys.admin,
      });
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain(`<QueueUrl>${queueUrl}</QueueUrl>`);
      const attributes = await query({
        Action: 'GetQueueAttributes',
        QueueUrl: queueUrl,
        'AttributeName.1': 'VisibilityTimeout',
      });
      expect(await attributes.text()).toContain(
        '<GetQueueAttributesResult><Attribute><Name>VisibilityTimeout</Name><Value>30</Value></Attribute></GetQueueAttributesResult>',
      );
    });
  });
});

describe('request size', () => {
  const stack = useSqsStack({ name: 'engine', skip: undefined }, { MAX_REQUEST_BYTES: '4096' });

  it("answers a body over MAX_REQUEST_BYTES in SQS's shape, before reading it as anything", async () => {
    const client = stack().client();
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: uniqueQueue('size') }));
    const error = await thrown(
      client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(5000) })),
    );
    expect(error.name).toBe('RequestEntityTooLarge');
    expect(error.$metadata.httpStatusCode).toBe(413);
  });
});

describe('a stalled body', () => {
  const stack = useSqsStack({ name: 'engine', skip: undefined }, { BODY_TIMEOUT_MS: '400' });
  const MiB = 1024 * 1024;
  /** An Authorization header that passes every check but the signature over the body. */
  const signedLooking = (accessKeyId: string) => {
    const at = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    return {
      'x-amz-date': at,
      authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${at.slice(0, 8)}/${REGION}/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
    };
  };
  const json = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' };

  it('from an unknown key is refused 403 at once, before any of its 1 MiB arrived', async () => {
    const answer = await stalledRequest(
      stack().url,
      head('/sqs', { ...json, ...signedLooking('AKIDSTRANGER') }, MiB),
      '{"MessageBody":"',
      1500,
      false,
    );
    expect(answer.status).toBe(403);
    expect(answer.firstByteMs).toBeLessThan(1000);
    expect(answer.text).toContain('InvalidClientTokenId');
  });

  it('as an unsigned form to the root is refused 403 at once, before the body is read', async () => {
    const answer = await stalledRequest(
      stack().url,
      head('/', { 'content-type': 'application/x-www-form-urlencoded' }, MiB),
      'Action=SendMessage&MessageBody=',
      1500,
      false,
    );
    expect(answer.status).toBe(403);
    expect(answer.firstByteMs).toBeLessThan(1000);
    expect(answer.text).toContain('MissingAuthenticationToken');
  });

  it('from a known key is answered RequestTimeout (408) once BODY_TIMEOUT_MS has passed', async () => {
    const answer = await stalledRequest(
      stack().url,
      head('/sqs', { ...json, ...signedLooking(keys.produce.accessKeyId) }, MiB),
      '{"MessageBody":"',
      5000,
    );
    expect(answer.status).toBe(408);
    expect(answer.firstByteMs).toBeGreaterThanOrEqual(350);
    expect(answer.firstByteMs).toBeLessThan(3000);
    expect(answer.text).toContain('RequestTimeout');
  });
});
