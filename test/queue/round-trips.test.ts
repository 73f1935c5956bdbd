/** Conformance: every operation is one Redis round trip once its script is cached. */
import { expect, it } from 'vitest';
import { onEveryBackend } from './support/suite.ts';

onEveryBackend('round trips', (make) => {
  it('runs each operation as a single EVALSHA in the steady state', async () => {
    const { queue, calls, clock } = make();
    const warm = async () => {
      await queue.configure('q', { visibilityTimeoutMs: 1000 });
      await queue.createGroup('q', 'g', '0');
      const ids = await queue.produce('q', [{ body: 1 }, { body: 2 }, { body: 3, delayMs: 10 }]);
      const got = await queue.consume('q', 'g', 'c', 10);
      await queue.extend('q', 'g', 'c', [got[0]?.id as string]);
      await queue.nack('q', 'g', [got[1]?.id as string], 0);
      await queue.ack('q', 'g', [ids[0] as string]);
      await queue.reclaim('q', 'g', 'c', { minIdleMs: 0 });
      await queue.pendingSummary('q', 'g');
      await queue.pendingRange('q', 'g', { start: '-', end: '+', count: 10 });
      await queue.browse('q', {});
      await queue.stats('q');
      await queue.getConfig('q');
      await queue.listQueues();
      await queue.listDeadLetters('q', {});
      await queue.redrive('q', { ids: ['1-1'] });
      await queue.purgeDeadLetters('q');
      clock.advance(2000);
    };
    await warm();
    calls.length = 0;
    await warm();
    expect(calls.map((c) => c.command)).toEqual(Array(17).fill('evalsha'));
    await queue.sweep();
    calls.length = 0;
    await queue.sweep();
    // The sweep reads the registry, then per queue its group names and its sweep step.
    expect(calls.map((c) => c.command)).toEqual(['evalsha', 'evalsha', 'evalsha']);
  });
});
