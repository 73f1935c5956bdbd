/**
 * The local engine's own thread (started by engine-thread.ts): the engine, kept in its data file
 * when one is given, answering the API thread's calls. Script calls run at once, in the order they
 * came; a blocking read answers when data arrives, its time passes or the API thread withdraws it.
 * Answers wait in an outbox until the messages that arrived together have all run (setImmediate,
 * after the poll phase that delivered them), then go back in one message: when the engine is busy
 * several batches are queued, and a message each way costs more than a script call's answer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createEngine } from '../../lib/engine/engine.ts';
import { RedisError } from '../../lib/engine/reply.ts';
import { RedisReplyError, type RedisValue, readArrived } from '../../lib/redis/client.ts';
import { toValue } from '../../lib/redis/engine-client.ts';
import { type DurableEngineHandle, openDurableEngine } from './engine-data-file.ts';
import type { EngineFailure, EngineThreadData, FromEngine, ToEngine } from './engine-thread-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('engine-thread-worker.ts runs as a worker thread (see engine-thread.ts)');
const send = (message: FromEngine) => port.postMessage(message);

/** Answers not yet sent, as the protocol's parallel arrays. */
let ids: number[] = [];
let values: RedisValue[] = [];
let failures: EngineFailure[] | undefined;

function flush(): void {
  if (ids.length === 0) return;
  const answers = failures === undefined ? { ids, values } : { ids, values, failures };
  ids = [];
  values = [];
  failures = undefined;
  send({ answers });
}

function answer(id: number, value: RedisValue): void {
  if (ids.length === 0) setImmediate(flush);
  ids.push(id);
  values.push(value);
}

/** A failed call: Redis' error reply (`reply`), or the engine failing. */
function failWith(id: number, error: string, reply: boolean): void {
  failures ??= [];
  failures.push({ at: ids.length, error, reply });
  answer(id, null);
}

/** An answer for a call that threw: Redis' error reply, or the engine failing. */
function fail(id: number, error: unknown): void {
  if (error instanceof RedisReplyError) failWith(id, error.message, true);
  else failWith(id, error instanceof Error ? error.message : String(error), false);
}

let durable: DurableEngineHandle | undefined;
try {
  const { dataFile } = workerData as EngineThreadData;
  durable = dataFile ? openDurableEngine({ path: dataFile }) : undefined;
  const engine = durable?.engine ?? createEngine();
  /** Blocking reads waiting, by call id. */
  const waiting = new Map<number, AbortController>();

  port.on('message', (message: ToEngine) => {
    if ('close' in message) {
      for (const controller of waiting.values()) controller.abort();
      durable?.close();
      flush();
      send({ closed: true });
      return;
    }
    const { ids: callIds, argvs, blocking } = message.calls;
    for (let i = 0; i < callIds.length; i++) {
      const id = callIds[i]!;
      const argv = argvs[i];
      if (argv === null || argv === undefined) {
        waiting.get(id)?.abort();
        continue;
      }
      if (blocking === undefined || !blocking.includes(id)) {
        try {
          answer(id, toValue(engine.callSync(argv)));
        } catch (error) {
          fail(id, error);
        }
        continue;
      }
      const controller = new AbortController();
      waiting.set(id, controller);
      engine.call(argv, { signal: controller.signal }).then(
        (reply) => {
          waiting.delete(id);
          if (reply instanceof RedisError) failWith(id, reply.message, true);
          else answer(id, readArrived(reply) ? 1 : 0);
        },
        (error: unknown) => {
          waiting.delete(id);
          fail(id, error);
        },
      );
    }
  });
  send({ ready: true, replayed: durable?.replayed ?? 0 });
} catch (error) {
  durable?.close();
  send({ failed: error instanceof Error ? error.message : String(error) });
}
