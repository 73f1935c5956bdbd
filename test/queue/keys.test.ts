/**
 * Key naming: one module, one hash tag per queue, no collisions between queues or groups, the
 * stored names unchanged, and a script's KEYS picked by the names its header gives them.
 */
import { describe, expect, it } from 'vitest';
import {
  createKeySpace,
  GROUP_KEY_NAMES,
  PARTITION_KEY_NAMES,
  REGISTRY_KEY_NAMES,
  scriptKeys,
} from '../../lib/queue/keys.ts';
import { scripts } from '../../lib/queue/scripts.generated.ts';

function hashTag(key: string): string | undefined {
  return /\{([^}]*)\}/.exec(key)?.[1];
}

it('gives every key of a queue the queue name as its hash tag', () => {
  const k = createKeySpace('q').queue('orders');
  const g = k.group('g');
  const keys = [
    ...PARTITION_KEY_NAMES.map((name) => k[name]),
    ...GROUP_KEY_NAMES.map((name) => g[name]),
    k.dedup('x{y}'),
  ];
  expect(keys.map(hashTag)).toEqual(Array(keys.length).fill('orders'));
  expect(new Set(keys).size).toBe(keys.length);
  expect(k.stream).toBe('q:{orders}:stream');
});

it('keeps the key names queues already hold in Redis', () => {
  const k = createKeySpace('q').queue('orders');
  expect(PARTITION_KEY_NAMES.map((name) => k[name])).toEqual([
    'q:{orders}:stream',
    'q:{orders}:dlq',
    'q:{orders}:dlq-index',
    'q:{orders}:schedules',
    'q:{orders}:delayed',
    'q:{orders}:delayed-data',
    'q:{orders}:config',
    'q:{orders}:wake',
    // New in the release that added cancelMessage; the names above stay as they were.
    'q:{orders}:cancelled',
    'q:{orders}:cancelled-data',
  ]);
  const g = k.group('billing');
  expect(GROUP_KEY_NAMES.map((name) => g[name])).toEqual([
    'q:{orders}:g:billing:lease',
    'q:{orders}:g:billing:meta',
    'q:{orders}:g:billing:turns',
    'q:{orders}:g:billing:heads',
    'q:{orders}:g:billing:keys',
    // New in the release that added rate limits.
    'q:{orders}:g:billing:rate',
  ]);
  expect(k.dedup('d-1')).toBe('q:{orders}:dedup:d-1');
  const space = createKeySpace('q');
  expect(REGISTRY_KEY_NAMES.map((name) => space[name])).toEqual([
    'q:{registry}:queues',
    'q:{registry}:sweep-cursor',
    'q:{registry}:sweep-due',
  ]);
});

it('keeps queues, groups and prefixes apart', () => {
  const space = createKeySpace('q');
  expect(space.queue('a').stream).not.toBe(space.queue('a.b').stream);
  expect(space.queue('a').group('g').lease).not.toBe(space.queue('a').group('g2').lease);
  expect(space.queue('a').group('g').lease).not.toBe(space.queue('a').group('g').meta);
  expect(createKeySpace('other').queue('a').stream).toBe('other:{a}:stream');
});

it('puts the global keys in one slot of their own', () => {
  const space = createKeySpace('q');
  expect(REGISTRY_KEY_NAMES.map((name) => hashTag(space[name]))).toEqual([
    'registry',
    'registry',
    'registry',
  ]);
  expect(space.registry).not.toBe(space.queue('registry').config);
  expect(space.sweepCursor).not.toBe(space.queue('registry').stream);
});

it('gives each partition its own hash tag, partition 0 the queue name alone', () => {
  const space = createKeySpace('q');
  expect(space.queue('orders', 0).stream).toBe('q:{orders}:stream');
  expect(space.queue('orders', 3).stream).toBe('q:{orders#3}:stream');
  expect(space.queue('orders', 3).group('g').lease).toBe('q:{orders#3}:g:g:lease');
  const tags = new Set(Array.from({ length: 256 }, (_, p) => hashTag(space.queue('orders', p).config)));
  expect(tags.size).toBe(256);
  // `#` is not in names, so no partition's keys meet another queue's.
  expect(tags.has('orders')).toBe(true);
  expect(hashTag(space.queue('orders', 1).dedup('x{y}'))).toBe('orders#1');
});

describe('scriptKeys', () => {
  const space = createKeySpace('q');

  it("picks a script's KEYS by the names in its header, group keys from the scope's group", () => {
    const k = space.queue('orders', 2);
    const g = k.group('billing');
    expect(scriptKeys(space, scripts.ack.keys, { queue: 'orders', partition: 2, group: 'billing' })).toEqual([
      k.stream,
      k.config,
      g.lease,
      g.meta,
      g.turns,
      g.heads,
      g.keyState,
      k.wake,
    ]);
    expect(scriptKeys(space, scripts.queues.keys, {})).toEqual([space.registry, space.sweepCursor]);
  });

  it('lists every named group key by key, then the dedup records', () => {
    const k = space.queue('orders');
    const keys = scriptKeys(space, scripts.produce.keys, {
      queue: 'orders',
      groups: ['a', 'b'],
      dedup: ['d1'],
    });
    expect(keys).toEqual([
      k.stream,
      k.dlq,
      k.dlqIndex,
      k.delayed,
      k.delayedData,
      k.config,
      k.wake,
      // Every group key but the rate limits' windows, which only consume and stats touch.
      ...['a', 'b'].flatMap((group) =>
        GROUP_KEY_NAMES.filter((name) => name !== 'rate').map((name) => k.group(group)[name]),
      ),
      k.dedup('d1'),
    ]);
    expect(scriptKeys(space, scripts.stats.keys, { queue: 'orders', groups: ['a'] })).toEqual([
      k.stream,
      k.dlq,
      k.delayed,
      k.config,
      k.group('a').heads,
      k.group('a').keyState,
      k.group('a').rate,
    ]);
  });

  it('refuses a scope that lacks what a key needs, and a name no key has', () => {
    expect(() => scriptKeys(space, scripts.ack.keys, { queue: 'orders' })).toThrow(
      /lease needs the call's group/,
    );
    expect(() => scriptKeys(space, scripts.browse.keys, {})).toThrow(/stream needs the call's queue/);
    expect(() => scriptKeys(space, { fixed: [['nope', 'string']] }, { queue: 'q' })).toThrow(
      /no key is named nope/,
    );
  });
});
