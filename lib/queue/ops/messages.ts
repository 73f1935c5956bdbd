/**
 * The messages family (lib/api/routes/messages.ts): producing, browsing the stream, and looking one
 * message up by id with where it stands in each group.
 */
import { decodeDeadLetter, decodeDeadLetterIn, decodeMessage } from '../codec.ts';
import type { QueueContext } from '../context.ts';
import { isQueueError, QueueError, QueueErrorCode } from '../errors.ts';
import { ABSENT, everyPartition, onPartition } from '../partitions/fan-out.ts';
import { decodeId, encodeId, merged, partitionOf, rangeIn } from '../partitions/ids.ts';
import { register, repair } from '../partitions/lifecycle.ts';
import { LOOKUP_ID_RULE, MAX_PARTITIONS } from '../rules.ts';
import { type MessageGetReply, scripts } from '../scripts.generated.ts';
import type { Message, MessageGroupState, MessageLookup, QueueService } from '../types.ts';
import { checkBound, checkCount, checkName, type EncodedMessage, encodeMessages } from '../validate.ts';

export type MessageOps = Pick<QueueService, 'produce' | 'browse' | 'getMessage'>;

/** Messages of one produce call that go to one partition (indexes into the call's messages). */
interface Batch {
  indexes: number[];
  /** Some message was routed by its groupKey, partitionKey or dedupId. */
  keyed: boolean;
  /** Some message goes into the stream with a groupKey (so the script needs the groups' keys). */
  grouped: boolean;
}

/**
 * Where each waiting message goes among `partitions`: by its groupKey, partitionKey or dedupId,
 * else to `spread` (unkeyed messages of one call share one partition: one round trip, order kept
 * within it).
 */
function route(
  encoded: readonly EncodedMessage[],
  waiting: readonly number[],
  partitions: number,
  spread: number,
): Map<number, Batch> {
  const routed = new Map<number, Batch>();
  for (const i of waiting) {
    const message = encoded[i] as EncodedMessage;
    // A group key is its messages' partition key (validation refuses a partitionKey beside it).
    const key = message.groupKey ?? message.partitionKey ?? message.dedupId;
    const p = key === undefined ? spread : partitionOf(key, partitions);
    const batch = routed.get(p) ?? { indexes: [], keyed: false, grouped: false };
    batch.indexes.push(i);
    if (key !== undefined) batch.keyed = true;
    if (message.groupKey !== undefined && message.delayMs === 0) batch.grouped = true;
    routed.set(p, batch);
  }
  return routed;
}

/** A group's row of message-get as the public state. */
function groupState(g: MessageGetReply['groups'][number], p: number): MessageGroupState {
  if (g.state === 'pending') {
    return {
      group: g.name,
      state: 'pending',
      consumer: g.consumer,
      deliveries: g.deliveries,
      pendingState: g.retrying ? 'retrying' : 'leased',
      eligibleAt: g.eligibleAt,
    };
  }
  if (g.state === 'dead-lettered') {
    return { group: g.name, state: 'dead-lettered', deadLetterId: encodeId(g.deadLetter, p) };
  }
  if (g.state === 'blocked') {
    return { group: g.name, state: 'blocked', blockedBy: encodeId(g.blockedBy, p) };
  }
  return { group: g.name, state: g.state === 'waiting' ? 'waiting' : 'acked' };
}

/** The lookup state of a message-get answer's kind. */
function lookupState(kind: MessageGetReply['kind']): MessageLookup['state'] {
  if (kind === 'delayed' || kind === 'stream' || kind === 'cancelled') return kind;
  return 'dead-lettered';
}

export function createMessageOps(ctx: QueueContext): MessageOps {
  /**
   * Runs produce for one partition's batch; answers the indexes to route again (all of them when
   * the partition asked for a reroute or turned out missing), none when it wrote them into `ids`.
   */
  async function produceBatch(
    queue: string,
    encoded: readonly EncodedMessage[],
    ids: string[],
    p: number,
    batch: Batch,
    partitions: number,
    mustExist: boolean,
  ): Promise<number[]> {
    const dedup: string[] = [];
    const messages = batch.indexes.map((i) => {
      const message = encoded[i] as EncodedMessage;
      if (message.dedupId !== undefined) dedup.push(message.dedupId);
      return {
        body: message.body,
        attributes: message.attributes,
        delayMs: message.delayMs,
        ttlMs: message.ttlMs,
        dedupKey: message.dedupId === undefined ? 0 : dedup.length,
        groupKey: message.groupKey ?? '',
      };
    });
    try {
      const reply = await ctx.run(
        scripts.produce,
        // Only a batch that parks grouped messages needs the groups' keys.
        { queue, partition: p, dedup, ...(batch.grouped ? {} : { groups: [] }) },
        {
          now: ctx.now(),
          config: ctx.scriptDefaults,
          create: p === 0 && !mustExist ? ctx.defaults.partitions : 0,
          known: partitions,
          keyed: batch.keyed ? 1 : 0,
          messages,
        },
      );
      const count = ctx.partitions.learn(queue, reply.partitions, p === 0);
      await register(ctx, queue, reply.unregistered, count);
      if (reply.rerouted) return batch.indexes;
      reply.ids.forEach((id, j) => {
        ids[batch.indexes[j] as number] = encodeId(id, p);
      });
      return [];
    } catch (error) {
      if (p === 0 || !isQueueError(error, QueueErrorCode.queueNotFound)) throw error;
      // A partition this instance believed in is missing: ask partition 0, make it if the queue
      // has it, and route these messages again (to partition 0 alone when the queue itself is
      // gone: deleted since, so this produce creates it anew).
      try {
        await repair(ctx, queue, p);
      } catch (missing) {
        if (!isQueueError(missing, QueueErrorCode.queueNotFound)) throw missing;
        ctx.partitions.forget(queue);
      }
      return batch.indexes;
    }
  }

  return {
    async produce(queue, input, options) {
      checkName('queue', queue);
      const mustExist = options?.mustExist === true;
      const encoded = encodeMessages(input, ctx.limits);
      const ids: string[] = new Array(encoded.length);
      let waiting = encoded.map((_, i) => i);
      for (let attempt = 0; waiting.length > 0; attempt++) {
        if (attempt > MAX_PARTITIONS) {
          throw new QueueError(QueueErrorCode.redisError, 'produce could not settle the partition count');
        }
        const partitions = ctx.partitions.get(queue) ?? 1;
        const spread = partitions > 1 ? ctx.rotate(queue) % partitions : 0;
        const routed = route(encoded, waiting, partitions, spread);
        const again = await Promise.all(
          [...routed].map(([p, batch]) => produceBatch(queue, encoded, ids, p, batch, partitions, mustExist)),
        );
        waiting = again.flat().sort((a, b) => a - b);
      }
      return ids;
    },

    async browse(queue, options) {
      checkName('queue', queue);
      const from = checkBound(options.start ?? '-', 'start');
      const to = checkBound(options.end ?? '+', 'end');
      const n = checkCount(options.count);
      const parts = await everyPartition(ctx, queue, async (p) => {
        // An empty range still answers QUEUE_NOT_FOUND for a queue that does not exist: read one
        // entry of partition 0 (XRANGE COUNT 0 answers nil) and drop it.
        const { start, end, empty } = rangeIn(from, to, p);
        if (empty && p > 0) return { partitions: 0, messages: [] as Message[] };
        const reply = await ctx.run(
          scripts.browse,
          { queue, partition: p },
          empty ? { from: '-', to: '+', count: 1 } : { from: start, to: end, count: n },
        );
        const messages = empty
          ? []
          : reply.entries.map(({ id, fields }) => decodeMessage(encodeId(id, p), fields, 0));
        return { partitions: reply.partitions, messages };
      });
      return merged(
        parts.flatMap((part) => part.result.messages),
        n,
      );
    },

    async getMessage(queue, id) {
      checkName('queue', queue);
      if (typeof id !== 'string' || !LOOKUP_ID_RULE.pattern.test(id)) {
        throw new QueueError(QueueErrorCode.invalidArgument, `id must be ${LOOKUP_ID_RULE.text}`, { id });
      }
      const { raw, partition: p } = decodeId(id);
      const reply = await onPartition(ctx, queue, p, () =>
        ctx.run(
          scripts.messageGet,
          { queue, partition: p },
          { id: raw, now: ctx.now(), config: ctx.scriptDefaults },
        ),
      );
      if (reply === ABSENT || reply.kind === 'none') return null;
      ctx.partitions.learn(queue, reply.partitions, p === 0);
      const source =
        reply.kind === 'stream' || reply.kind === 'delayed' || reply.kind === 'cancelled'
          ? decodeMessage(id, reply.fields, 0)
          : decodeDeadLetter(id, reply.fields);
      return {
        body: source.body,
        attributes: source.attributes,
        enqueuedAt: source.enqueuedAt,
        ...(source.groupKey === undefined ? {} : { groupKey: source.groupKey }),
        ...(source.fields === undefined ? {} : { fields: source.fields }),
        id,
        state: lookupState(reply.kind),
        ...(reply.kind === 'delayed' ? { deliverAt: reply.deliverAt } : {}),
        // message-get answers a cancelled message's cancel time where a delayed one's due time goes.
        ...(reply.kind === 'cancelled' ? { cancelledAt: reply.deliverAt } : {}),
        groups: reply.groups.map((g) => groupState(g, p)),
        deadLetters: reply.deadLetters.map((letter) => decodeDeadLetterIn(p, letter.id, letter.fields)),
      } satisfies MessageLookup;
    },
  };
}
