/**
 * The local engine's own thread (started by engine-thread.ts): the engine, kept in its data file
 * when one is given, answering the API thread's calls. Script calls run at once, in the order they
 * came, and a batch's answers go back in one message; a blocking read answers on its own when
 * data arrives, its time passes or the API thread withdraws it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createEngine } from '../../lib/engine/engine.ts';
import { RedisError } from '../../lib/engine/reply.ts';
import { RedisReplyError, readArrived } from '../../lib/redis/client.ts';
import { toValue } from '../../lib/redis/engine-client.ts';
import { type DurableEngineHandle, openDurableEngine } from './engine-data-file.ts';
import type { EngineAnswer, EngineThreadData, FromEngine, ToEngine } from './engine-thread-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('engine-thread-worker.ts runs as a worker thread (see engine-thread.ts)');
const send = (message: FromEngine) => port.postMessage(message);

/** An answer for a call that threw: Redis' error reply, or the engine failing. */
function failure(id: number, error: unknown): EngineAnswer {
  if (error instanceof RedisReplyError) return { id, error: error.message, reply: true };
  return { id, error: error instanceof Error ? error.message : String(error), reply: false };
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
      send({ closed: true });
      return;
    }
    const answers: EngineAnswer[] = [];
    for (const call of message.calls) {
      if ('cancel' in call) {
        waiting.get(call.id)?.abort();
        continue;
      }
      const { id, argv } = call;
      if (call.blocking !== true) {
        try {
          answers.push({ id, value: toValue(engine.callSync(argv)) });
        } catch (error) {
          answers.push(failure(id, error));
        }
        continue;
      }
      const controller = new AbortController();
      waiting.set(id, controller);
      engine.call(argv, { signal: controller.signal }).then(
        (reply) => {
          waiting.delete(id);
          const answer: EngineAnswer =
            reply instanceof RedisError
              ? { id, error: reply.message, reply: true }
              : { id, value: readArrived(reply) ? 1 : 0 };
          send({ answers: [answer] });
        },
        (error: unknown) => {
          waiting.delete(id);
          send({ answers: [failure(id, error)] });
        },
      );
    }
    if (answers.length > 0) send({ answers });
  });
  send({ ready: true, replayed: durable?.replayed ?? 0 });
} catch (error) {
  durable?.close();
  send({ failed: error instanceof Error ? error.message : String(error) });
}
