/** Conformance, the pause family (lib/queue/ops/pause.ts): pausing a queue or one of its groups. */
import { expect, it } from 'vitest';
import { onEveryBackend } from '../support/suite.ts';

const VT = 5000;

onEveryBackend('pause', (make) => {
  it('delivers nothing while the queue is paused, while produce, ack, nack, extend and the sweep go on', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'h', '0');
    const [a, b] = await queue.produce('q', [{ body: 'a' }, { body: 'b' }]);
    expect((await queue.consume('q', 'g', 'c', 1)).map((m) => m.id)).toEqual([a]);
    await queue.pauseQueue('q');
    expect((await queue.stats('q')).paused).toBe(true);
    expect(await queue.consume('q', 'g', 'c', 5)).toEqual([]);
    expect(await queue.consume('q', 'h', 'c', 5)).toEqual([]);
    const [c] = await queue.produce('q', [{ body: 'c' }]);
    expect(await queue.extend('q', 'g', 'c', [a as string])).toEqual({
      extended: [a],
      lost: [],
      cancelled: [],
    });
    expect(await queue.nack('q', 'g', [a as string], 0)).toBe(1);
    expect(await queue.consume('q', 'g', 'c', 5)).toEqual([]);
    // The sweep still dead-letters: a reached its one delivery.
    clock.advance(VT);
    expect((await queue.sweep()).deadLettered).toBe(1);
    await queue.resumeQueue('q');
    expect((await queue.stats('q')).paused).toBe(false);
    const ids = async (group: string) => (await queue.consume('q', group, 'c', 5)).map((m) => m.id).sort();
    expect(await ids('g')).toEqual([b, c].sort());
    expect(await ids('h')).toEqual([a, b, c].sort());
    expect(await queue.ack('q', 'g', [b as string, c as string])).toBe(2);
  });

  it('pauses one group while the others go on, and answers 404s for what does not exist', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'h', '0');
    await queue.produce('q', [{ body: 1 }]);
    await queue.pauseGroup('q', 'g');
    const stats = await queue.stats('q');
    expect(stats.paused).toBe(false);
    expect(stats.groups.map((g) => [g.name, g.paused])).toEqual([
      ['g', true],
      ['h', false],
    ]);
    expect(await queue.consume('q', 'g', 'c', 5)).toEqual([]);
    expect(await queue.consume('q', 'h', 'c', 5)).toHaveLength(1);
    await queue.resumeGroup('q', 'g');
    expect(await queue.consume('q', 'g', 'c', 5)).toHaveLength(1);
    await expect(queue.pauseGroup('q', 'nobody')).rejects.toThrow(
      'Group "nobody" of queue "q" does not exist',
    );
    await expect(queue.pauseGroup('missing', 'g')).rejects.toThrow('Queue "missing" does not exist');
    await expect(queue.pauseQueue('missing')).rejects.toThrow('Queue "missing" does not exist');
    await expect(queue.pauseQueue('bad name')).rejects.toThrow('queue name must be');
    // A deleted group's pause goes with it.
    await queue.pauseGroup('q', 'h');
    expect(await queue.deleteGroup('q', 'h')).toBe(true);
    await queue.createGroup('q', 'h', '0');
    expect(await queue.consume('q', 'h', 'c', 5)).toHaveLength(1);
  });

  it('keeps a queue paused across a partition growth', async () => {
    const { queue } = make();
    await queue.configure('q', { partitions: 1 });
    await queue.createGroup('q', 'g', '0');
    await queue.pauseQueue('q');
    await queue.configure('q', { partitions: 4 });
    for (let i = 0; i < 4; i++) await queue.produce('q', [{ body: i }]);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    await queue.resumeQueue('q');
    const got: unknown[] = [];
    for (let i = 0; i < 4 && got.length < 4; i++) got.push(...(await queue.consume('q', 'g', 'c', 10)));
    expect(got).toHaveLength(4);
  });
});
