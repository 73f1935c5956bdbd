/**
 * boto3 against the SQS endpoint: Debian's python3-boto3 (1.26, botocore 1.29) speaks the query
 * protocol, a current boto3 the JSON one. Each interpreter found with boto3 runs the same round
 * trip. Outside CI a machine without python3-boto3 skips it; with REQUIRE_REDIS=1 (CI, whose .ci/run
 * installs python3-boto3) Debian's query-protocol boto3 is required.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { keys, uniqueQueue, useSqsStack } from './support/stack.ts';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./support/boto3-round-trip.py', import.meta.url));

/** Interpreters that can import boto3, with the botocore version each has. */
async function interpreters(): Promise<{ python: string; version: string }[]> {
  const found = new Map<string, string>();
  for (const python of ['/usr/bin/python3', 'python3']) {
    try {
      const { stdout } = await run(python, ['-c', 'import boto3, botocore; print(botocore.__version__)']);
      const version = stdout.trim();
      if (![...found.values()].includes(version)) found.set(python, version);
    } catch {
      // No such interpreter, or no boto3 in it.
    }
  }
  return [...found].map(([python, version]) => ({ python, version }));
}

const available = await interpreters();
if (process.env.REQUIRE_REDIS === '1' && !available.some(({ python }) => python === '/usr/bin/python3')) {
  throw new Error('REQUIRE_REDIS=1 but /usr/bin/python3 has no boto3: apt-get install -y python3-boto3');
}
if (available.length === 0) console.warn('[skip] no python3 with boto3: the boto3 round trip is skipped');

describe.skipIf(available.length === 0)('boto3', () => {
  const stack = useSqsStack({ name: 'engine', skip: undefined });

  const md5 = (text: string) => createHash('md5').update(text).digest('hex');

  it.each(available)(
    '$python (botocore $version) creates, sends, receives and deletes',
    async ({ python }) => {
      const queue = uniqueQueue('boto3');
      const { stdout } = await run(python, [script, queue], {
        env: {
          ...process.env,
          SQS_ENDPOINT: stack().endpoint,
          SQS_KEY_ID: keys.admin.accessKeyId,
          SQS_SECRET: keys.admin.secretAccessKey,
          AWS_CONFIG_FILE: '/dev/null',
          AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        },
        timeout: 60_000,
      });
      const result = JSON.parse(stdout);
      expect(['query', 'json']).toContain(result.protocol);
      expect(result.url).toBe(`${stack().endpoint}/000000000000/${queue}`);
      expect(result.sent.MD5OfMessageBody).toBe(md5('hello from boto3\r\nline two'));
      expect(result.batch).toEqual({ successful: ['one'], failed: [['bad', 'MissingParameter']] });
      expect(result.received).toEqual([
        { body: 'b1', md5: md5('b1'), attributes: {}, md5OfAttributes: null, receiveCount: '1' },
        {
          body: 'hello from boto3\r\nline two',
          md5: md5('hello from boto3\r\nline two'),
          attributes: { City: 'Any City', Bytes: [0, 1, 255] },
          md5OfAttributes: result.sent.MD5OfMessageAttributes,
          receiveCount: '1',
        },
      ]);
      expect(result.deleted).toEqual(['d0', 'd1']);
      expect(result.visibility).toBe('40');
      expect(result.missing).toBe('AWS.SimpleQueueService.NonExistentQueue');
    },
  );
});
