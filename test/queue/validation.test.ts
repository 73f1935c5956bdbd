/** Conformance: bad input gets a typed error before any Redis call and changes nothing. */
import { expect, it } from 'vitest';
import { isQueueError, type QueueErrorCode } from '../../lib/queue/errors.ts';
import type { QueueService } from '../../lib/queue/types.ts';
import { onEveryBackend } from './support/suite.ts';

const circular: Record<string, unknown> = {};
circular.self = circular;

type Case = [title: string, code: QueueErrorCode, call: (q: QueueService) => Promise<unknown>];

const cases: Case[] = [
  ['a queue name with a space', 'INVALID_ARGUMENT', (q) => q.produce('bad name', [{ body: 1 }])],
  ['an empty queue name', 'INVALID_ARGUMENT', (q) => q.produce('', [{ body: 1 }])],
  ['a 101-character queue name', 'INVALID_ARGUMENT', (q) => q.produce('x'.repeat(101), [{ body: 1 }])],
  ['a queue name with a brace', 'INVALID_ARGUMENT', (q) => q.configure('a}b', { maxDeliveries: 2 })],
  ['a group name with a colon', 'INVALID_ARGUMENT', (q) => q.createGroup('q', 'g:1', '0')],
  ['a consumer name with a slash', 'INVALID_ARGUMENT', (q) => q.consume('q', 'g', 'c/1', 1)],
  ['an empty batch', 'INVALID_ARGUMENT', (q) => q.produce('q', [])],
  [
    'a batch of 1001',
    'INVALID_ARGUMENT',
    (q) =>
      q.produce(
        'q',
        Array.from({ length: 1001 }, () => ({ body: 1 })),
      ),
  ],
  ['a BigInt body', 'INVALID_ARGUMENT', (q) => q.produce('q', [{ body: 1 }, { body: 10n }])],
  ['a circular body', 'INVALID_ARGUMENT', (q) => q.produce('q', [{ body: circular }])],
  ['an undefined body', 'INVALID_ARGUMENT', (q) => q.produce('q', [{ body: undefined }])],
  ['a function body', 'INVALID_ARGUMENT', (q) => q.produce('q', [{ body: () => 1 }])],
  ['a body over 256 KiB', 'MESSAGE_TOO_LARGE', (q) => q.produce('q', [{ body: 'x'.repeat(256 * 1024) }])],
  [
    'a non-string attribute',
    'INVALID_ARGUMENT',
    (q) => q.produce('q', [{ body: 1, attributes: { a: 1 as never } }]),
  ],
  ['a negative delay', 'INVALID_ARGUMENT', (q) => q.produce('q', [{ body: 1, delayMs: -1 }])],
  ['a fractional delay', 'INVALID_ARGUMENT', (q) => q.produce('q', [{ body: 1, delayMs: 1.5 }])],
  ['an empty dedupId', 'INVALID_ARGUMENT', (q) => q.produce('q', [{ body: 1, dedupId: '' }])],
  ['an empty partitionKey', 'INVALID_ARGUMENT', (q) => q.produce('q', [{ body: 1, partitionKey: '' }])],
  [
    'a partitionKey over 256 characters',
    'INVALID_ARGUMENT',
    (q) => q.produce('q', [{ body: 1, partitionKey: 'k'.repeat(257) }]),
  ],
  ['an id naming partition 0', 'INVALID_ARGUMENT', (q) => q.ack('q', 'g', ['1-0-0'])],
  ['an id naming partition 256', 'INVALID_ARGUMENT', (q) => q.extend('q', 'g', 'c', ['1-0-256'])],
  ['zero partitions', 'INVALID_ARGUMENT', (q) => q.configure('q', { partitions: 0 })],
  ['257 partitions', 'INVALID_ARGUMENT', (q) => q.configure('q', { partitions: 257 })],
  ['count 0', 'INVALID_ARGUMENT', (q) => q.consume('q', 'g', 'c', 0)],
  ['count 1001', 'INVALID_ARGUMENT', (q) => q.consume('q', 'g', 'c', 1001)],
  ['an id without a sequence', 'INVALID_ARGUMENT', (q) => q.ack('q', 'g', ['12345'])],
  ['an id with letters', 'INVALID_ARGUMENT', (q) => q.ack('q', 'g', ['1-0', '1a-0'])],
  ['an id past 64 bits', 'INVALID_ARGUMENT', (q) => q.nack('q', 'g', ['18446744073709551616-0'], 0)],
  ['no ids', 'INVALID_ARGUMENT', (q) => q.ack('q', 'g', [])],
  ['a negative nack delay', 'INVALID_ARGUMENT', (q) => q.nack('q', 'g', ['1-0'], -5)],
  ['a bad group start', 'INVALID_ARGUMENT', (q) => q.createGroup('q', 'g', '>')],
  [
    'a bad reclaim cursor',
    'INVALID_ARGUMENT',
    (q) => q.reclaim('q', 'g', 'c', { minIdleMs: 0, cursor: 'x' }),
  ],
  ['a negative min idle', 'INVALID_ARGUMENT', (q) => q.reclaim('q', 'g', 'c', { minIdleMs: -1 })],
  ['a bad browse bound', 'INVALID_ARGUMENT', (q) => q.browse('q', { start: '(-' })],
  ['an unknown config field', 'INVALID_ARGUMENT', (q) => q.configure('q', { colour: 3 } as never)],
  ['a zero visibility timeout', 'INVALID_ARGUMENT', (q) => q.configure('q', { visibilityTimeoutMs: 0 })],
  ['a bad DLQ cursor', 'INVALID_ARGUMENT', (q) => q.listDeadLetters('q', { cursor: 'nope' })],
  ['redrive with a bad id', 'INVALID_ARGUMENT', (q) => q.redrive('q', { ids: ['1-x'] })],
];

onEveryBackend('validation', (make) => {
  it.each(cases)('rejects %s with %s before touching Redis', async (_title, code, call) => {
    const { queue, calls } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 'seed' }]);
    const before = await queue.stats('q');
    const callsBefore = calls.length;
    await expect(call(queue)).rejects.toSatisfy((error) => isQueueError(error, code));
    expect(calls.length).toBe(callsBefore);
    expect(await queue.stats('q')).toEqual(before);
    expect(await queue.listQueues()).toEqual(['q']);
  });
});
