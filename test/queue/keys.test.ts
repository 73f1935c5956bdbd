/** Key naming: one module, one hash tag per queue, no collisions between queues or groups. */
import { expect, it } from 'vitest';
import { createKeySpace } from '../../lib/queue/keys.ts';

function hashTag(key: string): string | undefined {
  return /\{([^}]*)\}/.exec(key)?.[1];
}

it('gives every key of a queue the queue name as its hash tag', () => {
  const k = createKeySpace('q').queue('orders');
  const keys = [
    k.stream,
    k.dlq,
    k.delayed,
    k.delayedData,
    k.config,
    k.lease('g'),
    k.groupMeta('g'),
    k.dedup('x{y}'),
  ];
  expect(keys.map(hashTag)).toEqual(Array(keys.length).fill('orders'));
  expect(new Set(keys).size).toBe(keys.length);
  expect(k.stream).toBe('q:{orders}:stream');
});

it('keeps queues, groups and prefixes apart', () => {
  const space = createKeySpace('q');
  expect(space.queue('a').stream).not.toBe(space.queue('a.b').stream);
  expect(space.queue('a').lease('g')).not.toBe(space.queue('a').lease('g2'));
  expect(space.queue('a').lease('g')).not.toBe(space.queue('a').groupMeta('g'));
  expect(createKeySpace('other').queue('a').stream).toBe('other:{a}:stream');
});

it('puts the global keys in one slot of their own', () => {
  const space = createKeySpace('q');
  expect(hashTag(space.registry)).toBe('registry');
  expect(hashTag(space.sweepCursor)).toBe('registry');
  expect(space.registry).not.toBe(space.queue('registry').config);
  expect(space.sweepCursor).not.toBe(space.queue('registry').stream);
});

it('gives each partition its own hash tag, partition 0 the queue name alone', () => {
  const space = createKeySpace('q');
  expect(space.queue('orders', 0).stream).toBe('q:{orders}:stream');
  expect(space.queue('orders', 3).stream).toBe('q:{orders#3}:stream');
  expect(space.queue('orders', 3).lease('g')).toBe('q:{orders#3}:g:g:lease');
  const tags = new Set(Array.from({ length: 256 }, (_, p) => hashTag(space.queue('orders', p).config)));
  expect(tags.size).toBe(256);
  // `#` is not in names, so no partition's keys meet another queue's.
  expect(tags.has('orders')).toBe(true);
  expect(hashTag(space.queue('orders', 1).dedup('x{y}'))).toBe('orders#1');
});
