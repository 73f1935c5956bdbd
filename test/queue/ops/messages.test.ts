/**
 * Conformance, the messages family (lib/queue/ops/messages.ts): delayed messages, dedup, and a
 * message looked up by id in every state.
 */
import { expect, it } from 'vitest';
import { isQueueError } from '../../../lib/queue/errors.ts';
import { idShape, onEveryBackend } from '../support/suite.ts';

const VT = 5000;

onEveryBackend('messages', (make) => {
  it('keeps delayed messages invisible until due, then delivers them', async () => {
    const { queue, clock, partitions } = make();
    await queue.createGroup('q', 'g', '0');
    const [delayedId, nowId] = await queue.produce('q', [
      { body: 'later', delayMs: 10_000, attributes: { trace: 't1' } },
      { body: 'now' },
    ]);
    expect(delayedId).toMatch(idShape(/^delayed-\d+$/, partitions));
    expect((await queue.stats('q')).delayed).toBe(1);
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.id)).toEqual([nowId]);
    clock.advance(9_999);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    clock.advance(1);
    const [later] = await queue.consume('q', 'g', 'c', 10);
    expect(later?.body).toBe('later');
    expect(later?.attributes).toEqual({ trace: 't1' });
    expect(later?.enqueuedAt).toBe(clock.now() - 10_000);
    expect((await queue.stats('q')).delayed).toBe(0);
  });

  it('produces into an existing queue only with mustExist, writing nothing otherwise', async () => {
    const { queue, another } = make();
    const error = await queue.produce('q', [{ body: 1 }], { mustExist: true }).catch((e) => e);
    expect(error.code).toBe('QUEUE_NOT_FOUND');
    expect(await queue.getConfig('q')).toBeNull();
    expect(await queue.listQueues()).toEqual([]);
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 1 }, { body: 2, partitionKey: 'k' }], { mustExist: true });
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.body).sort()).toEqual([1, 2]);
    expect(id).toBeDefined();
    // An instance that knew the queue (and its partitions) finds it deleted since.
    const other = another();
    await other.produce('q', [{ body: 3 }]);
    await queue.deleteQueue('q');
    const gone = await other
      .produce('q', [{ body: 4 }, { body: 5, partitionKey: 'x' }, { body: 6, dedupId: 'd' }], {
        mustExist: true,
      })
      .catch((e) => e);
    expect(gone.code).toBe('QUEUE_NOT_FOUND');
    expect(await queue.getConfig('q')).toBeNull();
    expect(await queue.listQueues()).toEqual([]);
  });

  it('answers a repeated dedupId within the window with the first id and adds nothing', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { dedupWindowMs: 60_000 });
    const [first, inBatch] = await queue.produce('q', [
      { body: 1, dedupId: 'order-7' },
      { body: 2, dedupId: 'order-7' },
    ]);
    expect(inBatch).toBe(first);
    clock.advance(59_999);
    expect(await queue.produce('q', [{ body: 3, dedupId: 'order-7' }])).toEqual([first]);
    expect((await queue.stats('q')).length).toBe(1);
    clock.advance(1);
    const [after] = await queue.produce('q', [{ body: 4, dedupId: 'order-7' }]);
    expect(after).not.toBe(first);
    expect((await queue.stats('q')).length).toBe(2);
    // A deleted and recreated queue does not remember the old queue's ids.
    await queue.deleteQueue('q');
    await queue.produce('q', [{ body: 5, dedupId: 'order-7' }]);
    expect((await queue.browse('q', {})).map((m) => m.body)).toEqual([5]);
  });

  it('refuses a lone surrogate in a dedupId and keeps distinct valid ids distinct', async () => {
    const { queue } = make();
    await queue.configure('q', { dedupWindowMs: 60_000 });
    await queue.createGroup('q', 'g', '0');
    for (const dedupId of ['\ud800', '\udfff', 'a\udbffb', 'x\udc00']) {
      await expect(queue.produce('q', [{ body: dedupId, dedupId }])).rejects.toSatisfy(
        (e) => isQueueError(e, 'INVALID_ARGUMENT') && /dedupId/.test((e as Error).message),
      );
    }
    // A refused message in a batch stores none of the batch.
    await expect(
      queue.produce('q', [
        { body: 'ok', dedupId: 'fine' },
        { body: 'bad', dedupId: '\ud800' },
      ]),
    ).rejects.toSatisfy((e) => isQueueError(e, 'INVALID_ARGUMENT'));
    expect((await queue.stats('q')).length).toBe(0);
    // U+FFFD itself, a surrogate pair and the replacement of a pair's halves are distinct ids.
    const ids = await queue.produce('q', [
      { body: 1, dedupId: '\ufffd' },
      { body: 2, dedupId: '\ud83d\ude00' },
      { body: 3, dedupId: '\ufffd\ufffd' },
    ]);
    expect(new Set(ids).size).toBe(3);
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.body).sort()).toEqual([1, 2, 3]);
    expect(await queue.produce('q', [{ body: 4, dedupId: '\ud83d\ude00' }])).toEqual([ids[1]]);
  });

  it('refuses a lone surrogate in a groupKey, partitionKey or attribute and keeps valid keys exact', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    const bad: [string, Record<string, unknown>][] = [
      ['groupKey', { groupKey: '\ud800' }],
      ['groupKey', { groupKey: '\udbff' }],
      ['partitionKey', { partitionKey: '\udfff' }],
      ['attribute names', { attributes: { '\ud800': 'v' } }],
      ['attribute', { attributes: { k: 'v\udc00' } }],
    ];
    for (const [field, message] of bad) {
      await expect(queue.produce('q', [{ body: 1, ...message }])).rejects.toSatisfy(
        (e) => isQueueError(e, 'INVALID_ARGUMENT') && (e as Error).message.includes(field),
      );
    }
    expect((await queue.stats('q')).length).toBe(0);
    await queue.produce('q', [
      { body: 'a', groupKey: '\ufffd', attributes: { '\ud83d\ude00': '\ud83d\ude01' } },
      { body: 'b', groupKey: '\ud83d\ude00' },
      // A lone surrogate in the body is JSON-escaped, so it round-trips exactly.
      { body: { text: '\ud800' } },
    ]);
    // Sorted by body: a partitioned queue answers its partitions in turn.
    const got = (await queue.consume('q', 'g', 'c', 10)).sort((x, y) =>
      JSON.stringify(x.body) < JSON.stringify(y.body) ? -1 : 1,
    );
    expect(got.map((m) => [m.body, m.groupKey ?? null])).toEqual([
      ['a', '\ufffd'],
      ['b', '\ud83d\ude00'],
      [{ text: '\ud800' }, null],
    ]);
    expect(got[0]?.attributes).toEqual({ '\ud83d\ude00': '\ud83d\ude01' });
  });

  it('looks a message up by id in every state, in one round trip', async () => {
    const { queue, clock, calls, raw, at } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'h', '0');
    const [a] = await queue.produce('q', [{ body: { n: 1 }, attributes: { k: 'v' } }]);
    const [later] = await queue.produce('q', [{ body: 'later', delayMs: 60_000 }]);
    const enqueuedAt = clock.now();
    // Once to load the script on the node that holds the id's partition (a cluster has several).
    await queue.getMessage('q', a as string);
    const before = calls.length;
    const waiting = await queue.getMessage('q', a as string);
    expect(calls.slice(before).map((call) => call.command)).toEqual(['evalsha']);
    expect(waiting).toEqual({
      id: a,
      state: 'stream',
      body: { n: 1 },
      attributes: { k: 'v' },
      enqueuedAt,
      groups: [
        { group: 'g', state: 'waiting' },
        { group: 'h', state: 'waiting' },
      ],
      deadLetters: [],
    });
    expect(await queue.getMessage('q', later as string)).toMatchObject({
      id: later,
      state: 'delayed',
      body: 'later',
      deliverAt: enqueuedAt + 60_000,
      groups: [],
    });
    await queue.consume('q', 'g', 'c', 1);
    await queue.consume('q', 'h', 'd', 1);
    expect((await queue.getMessage('q', a as string))?.groups).toEqual([
      {
        group: 'g',
        state: 'pending',
        consumer: 'c',
        deliveries: 1,
        pendingState: 'leased',
        eligibleAt: enqueuedAt + VT,
      },
      {
        group: 'h',
        state: 'pending',
        consumer: 'd',
        deliveries: 1,
        pendingState: 'leased',
        eligibleAt: enqueuedAt + VT,
      },
    ]);
    await queue.ack('q', 'g', [a as string]);
    await queue.nack('q', 'h', [a as string], 1000);
    expect((await queue.getMessage('q', a as string))?.groups).toEqual([
      { group: 'g', state: 'acked' },
      {
        group: 'h',
        state: 'pending',
        consumer: 'd',
        deliveries: 1,
        pendingState: 'retrying',
        eligibleAt: enqueuedAt + 1000,
      },
    ]);
    // h's one delivery is spent: its redelivery is dead-lettered instead.
    clock.advance(1000);
    expect(await queue.consume('q', 'h', 'd', 1)).toEqual([]);
    const dead = await queue.getMessage('q', a as string);
    const letter = dead?.deadLetters[0];
    expect(dead?.groups).toEqual([
      { group: 'g', state: 'acked' },
      { group: 'h', state: 'dead-lettered', deadLetterId: letter?.id },
    ]);
    expect(letter).toMatchObject({
      deadLetteredFrom: a,
      group: 'h',
      reason: 'maxDeliveries',
      body: { n: 1 },
    });
    // The dead letter's own id answers it too.
    expect(await queue.getMessage('q', letter?.id as string)).toEqual({
      id: letter?.id,
      state: 'dead-lettered',
      body: { n: 1 },
      attributes: { k: 'v' },
      enqueuedAt,
      groups: [],
      deadLetters: [letter],
    });
    // Gone from the stream (deleted or trimmed): its dead letter is what is left.
    const { keys, raw: rawId } = at('q', a as string);
    await raw("return redis.call('XDEL', KEYS[1], ARGV[1])", [keys.stream], [rawId]);
    expect(await queue.getMessage('q', a as string)).toMatchObject({
      id: a,
      state: 'dead-lettered',
      body: { n: 1 },
      groups: [{ group: 'h', state: 'dead-lettered', deadLetterId: letter?.id }],
      deadLetters: [letter],
    });
    // A dead letter written before the index existed is found by its own id only.
    await raw("return redis.call('DEL', KEYS[1])", [keys.dlqIndex]);
    expect(await queue.getMessage('q', a as string)).toBeNull();
    expect((await queue.getMessage('q', letter?.id as string))?.state).toBe('dead-lettered');
    // Redriven: the dead letter and its index entry go.
    await queue.produce('q', [{ body: 'x' }]);
    expect(await queue.getMessage('q', '1-0')).toBeNull();
    await expect(queue.getMessage('missing', '1-0')).rejects.toThrow('Queue "missing" does not exist');
    await expect(queue.getMessage('q', 'nope')).rejects.toThrow('id must be');
  });
});
