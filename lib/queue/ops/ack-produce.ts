/**
 * Ack-and-produce (issue 29): an ack that sends the results of the messages it acks to the next
 * queue in the same step. Every result carries a dedupId: its own when it has one, else one derived
 * from where it came from (`ap:<queue>:<group>:<id>:<n>`, the n-th result of that message), so a
 * repeat of the same ack-and-produce — a retry after a lost answer, or another consumer's after
 * a lease expiry — adds nothing the target saw within its dedup window.
 *
 * Where the acked messages' partition and the target partition are in one Redis (no cluster) or
 * share a cluster slot, one script (ack-produce) acks and produces atomically: the results of the
 * ids it acks are produced, the others' are not. Otherwise (Redis Cluster, two slots) three steps:
 * ack-check asks which ids the consumer holds (changing nothing), produce sends those ids' results,
 * and the ack follows; a crash or a lost answer between them is repaired by repeating the call,
 * whose produce the derived dedupIds make a no-op. See docs/delivery.md, "Ack-and-produce".
 */

import { keySlot } from '../../redis/key-slot.ts';
import type { QueueContext } from '../context.ts';
import { isQueueError, QueueError, QueueErrorCode } from '../errors.ts';
import { byIdPartition } from '../partitions/fan-out.ts';
import { decodeId, encodeId, partitionOf } from '../partitions/ids.ts';
import { register, repair } from '../partitions/lifecycle.ts';
import { MAX_PARTITIONS } from '../rules.ts';
import { scripts } from '../scripts.generated.ts';
import type {
  AckOutcome,
  AckProduce,
  AckProduced,
  AckProducedMessage,
  MessageInput,
  QueueService,
} from '../types.ts';
import { checkIds, checkName, type EncodedMessage, encodeMessages } from '../validate.ts';

function invalidArgument(message: string, details?: unknown): never {
  throw new QueueError(QueueErrorCode.invalidArgument, message, details);
}

/**
 * Where a result came from: the acked message, by queue, group and id (names cannot hold `:`).
 * A result without a groupKey, partitionKey or dedupId of its own takes it as its partition key, so
 * the results of one message go to one partition of the target.
 */
export function sourceKey(queue: string, group: string, id: string): string {
  return `ap:${queue}:${group}:${id}`;
}

/** The dedupId a result gets when it has none: its source and its place among that one's results. */
export function derivedDedupId(queue: string, group: string, id: string, position: number): string {
  return `${sourceKey(queue, group, id)}:${position}`;
}

/** A result, checked and encoded, with the index in `ids` of the id it is a result of. */
interface Result {
  encoded: EncodedMessage & { dedupId: string };
  source: number;
}

/** The results of `produce`, checked, each tied to its source id and carrying its dedupId. */
function results(
  queue: string,
  group: string,
  ids: readonly string[],
  produce: AckProduce,
  ctx: QueueContext,
) {
  if (typeof produce !== 'object' || produce === null) invalidArgument('produce must be an object');
  checkName('queue', produce.queue);
  const list: unknown = produce.messages;
  if (!Array.isArray(list)) invalidArgument('produce.messages must be an array of messages');
  const sources: number[] = [];
  const inputs = list.map((message: unknown, index): MessageInput => {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      invalidArgument(`message ${index} must be an object`);
    }
    const { from, ...input } = message as AckProducedMessage;
    if (from === undefined) {
      if (new Set(ids).size !== 1) {
        invalidArgument(
          `message ${index} needs a from (the id it is a result of) when more than one id is acked`,
          {
            index,
          },
        );
      }
      sources.push(0);
    } else {
      const at = typeof from === 'string' ? ids.indexOf(from) : -1;
      if (at < 0) invalidArgument(`message ${index} from must be one of the ids acked`, { index });
      sources.push(at);
    }
    return input;
  });
  const encoded = encodeMessages(inputs, ctx.limits);
  const positions = new Map<number, number>();
  return encoded.map((message, i): Result => {
    const source = sources[i] as number;
    const position = positions.get(source) ?? 0;
    positions.set(source, position + 1);
    const id = ids[source] as string;
    const dedupId = message.dedupId ?? derivedDedupId(queue, group, id, position);
    const keyed = message.groupKey ?? message.partitionKey ?? message.dedupId;
    const partitionKey = keyed === undefined ? sourceKey(queue, group, id) : message.partitionKey;
    return { encoded: { ...message, dedupId, partitionKey }, source };
  });
}

/** Where a result goes among the target's partitions (as produce routes a message). */
function routeOf({ encoded }: Result, partitions: number): number {
  return partitionOf(encoded.groupKey ?? encoded.partitionKey ?? encoded.dedupId, partitions);
}

/** The result as produce takes it back (its dedupId made explicit). */
function asInput({ encoded }: Result): MessageInput {
  const input: MessageInput = { body: JSON.parse(encoded.body) as unknown, dedupId: encoded.dedupId };
  if (encoded.attributes !== '') input.attributes = JSON.parse(encoded.attributes) as Record<string, string>;
  if (encoded.delayMs > 0) input.delayMs = encoded.delayMs;
  if (encoded.ttlMs > 0) input.ttlMs = encoded.ttlMs;
  if (encoded.partitionKey !== undefined) input.partitionKey = encoded.partitionKey;
  if (encoded.groupKey !== undefined) input.groupKey = encoded.groupKey;
  return input;
}

export function createAckProduce(
  ctx: QueueContext,
  service: () => Pick<QueueService, 'ack' | 'produce' | 'getConfig'>,
) {
  /**
   * The one-script path: answers 'again' when the call must be routed again (the target has more
   * partitions than this instance knew, or one it believed in was missing).
   */
  async function together(
    queue: string,
    group: string,
    consumer: string,
    ids: readonly string[],
    target: string,
    list: readonly Result[],
    from: number,
    into: number,
    known: number,
  ): Promise<AckProduced | 'again'> {
    const raw = ids.map((id) => decodeId(id).raw);
    const dedup: string[] = [];
    let grouped = false;
    const messages = list.map(({ encoded, source }) => {
      dedup.push(encoded.dedupId);
      if (encoded.groupKey !== undefined && encoded.delayMs === 0) grouped = true;
      return {
        body: encoded.body,
        attributes: encoded.attributes,
        delayMs: encoded.delayMs,
        ttlMs: encoded.ttlMs,
        dedupKey: dedup.length,
        groupKey: encoded.groupKey ?? '',
        source: source + 1,
      };
    });
    const reply = await ctx.run(
      scripts.ackProduce,
      {
        queue: target,
        partition: into,
        dedup,
        from: { queue, partition: from, group },
        ...(grouped ? {} : { groups: [] }),
      },
      {
        from: [group],
        consumer,
        now: ctx.now(),
        config: ctx.scriptDefaults,
        known,
        keyed: 1,
        ids: raw,
        messages,
      },
    );
    if (reply.missing === 'target') {
      if (into === 0) throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${target}" does not exist`);
      // A partition this instance believed in is missing: make it if the queue has it, and route
      // again (with the count partition 0 gives).
      try {
        if (!(await repair(ctx, target, into))) ctx.partitions.forget(target);
      } catch (error) {
        if (!isQueueError(error, QueueErrorCode.queueNotFound)) throw error;
        ctx.partitions.forget(target);
      }
      return 'again';
    }
    if (reply.missing === 'queue') {
      // The acked ids' partition is missing: made again when the queue has it (then route again),
      // else none of them is pending and nothing is produced (as ack answers ids of a lost one).
      if (from > 0 && (await repair(ctx, queue, from).catch(() => false))) return 'again';
      if (from > 0) {
        return { acked: 0, outcomes: ids.map(() => 'not-pending'), produced: list.map(() => null) };
      }
      throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${queue}" does not exist`);
    }
    if (reply.missing === 'group') {
      throw new QueueError(
        QueueErrorCode.groupNotFound,
        `Group "${group}" of queue "${queue}" does not exist`,
      );
    }
    const count = ctx.partitions.learn(target, reply.partitions, into === 0);
    await register(ctx, target, reply.unregistered, count);
    if (reply.rerouted) return 'again';
    return {
      acked: reply.acked,
      outcomes: reply.outcomes as AckOutcome[],
      produced: reply.ids.map((id) => (id === '' ? null : encodeId(id, into))),
    };
  }

  /** The three-step path: check, produce the held ids' results, ack. */
  async function apart(
    queue: string,
    group: string,
    consumer: string | undefined,
    ids: readonly string[],
    target: string,
    list: readonly Result[],
  ): Promise<AckProduced> {
    const holder = consumer ?? '';
    const parts = await byIdPartition(ctx, queue, ids, (p, raw) =>
      ctx.run(scripts.ackCheck, { queue, partition: p, group }, { consumer: holder, ids: raw }),
    );
    const cursors = new Map(parts.map(({ p, result }) => [p, { outcomes: result.outcomes, at: 0 }]));
    const held = ids.map((id) => {
      const part = cursors.get(decodeId(id).partition);
      return part !== undefined && part.outcomes[part.at++] === 'acked';
    });
    const chosen = list.filter(({ source }) => held[source]);
    const produced: (string | null)[] = list.map(() => null);
    if (chosen.length > 0) {
      const made = await service().produce(target, chosen.map(asInput), { mustExist: true });
      let at = 0;
      list.forEach(({ source }, i) => {
        if (held[source]) produced[i] = made[at++] as string;
      });
    } else if ((await service().getConfig(target)) === null) {
      throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${target}" does not exist`);
    }
    const acked = await service().ack(queue, group, [...ids], {
      ...(consumer === undefined ? {} : { consumer }),
      outcomes: true,
    });
    return { ...acked, produced };
  }

  return async function ackAndProduce(
    queue: string,
    group: string,
    ids: readonly string[],
    consumer: string | undefined,
    produce: AckProduce,
  ): Promise<AckProduced> {
    checkName('queue', queue);
    checkName('group', group);
    if (consumer !== undefined) checkName('consumer', consumer);
    checkIds(ids);
    const list = results(queue, group, ids, produce, ctx);
    const target = produce.queue;
    const from = new Set(ids.map((id) => decodeId(id).partition));
    for (let attempt = 0; attempt <= MAX_PARTITIONS; attempt++) {
      const known = ctx.partitions.get(target) ?? 1;
      const into = new Set(list.map((result) => routeOf(result, known)));
      const [p] = from;
      const [q] = into;
      if (from.size !== 1 || into.size !== 1 || p === undefined || q === undefined) break;
      if (ctx.cluster) {
        const a = ctx.space.queue(queue, p).stream;
        const b = ctx.space.queue(target, q).stream;
        if (keySlot(a) !== keySlot(b)) break;
      }
      const answer = await together(queue, group, consumer ?? '', ids, target, list, p, q, known);
      if (answer !== 'again') return answer;
    }
    return apart(queue, group, consumer, ids, target, list);
  };
}
