/**
 * `npm start`'s local engine on a thread of its own (engine-thread-worker.ts), behind the Redis
 * seam: the API's event loop parses, validates and answers HTTP while the engine runs scripts on
 * the other core, instead of both taking turns on one. The calls of one tick go over in one
 * message and their answers come back in one. The engine itself is the same as in process
 * (lib/engine, its data file included); only where it runs differs. A script call cannot be cut
 * short (as on the engine in process: the deadline stops the caller waiting); a blocking read is
 * withdrawn on the engine when its caller gives up.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  blockingReadArgv,
  type RedisClient,
  RedisReplyError,
  RedisUnavailableError,
  type RedisValue,
} from '../../lib/redis/client.ts';
import type { EngineThreadData, FromEngine, ToEngine } from './engine-thread-protocol.ts';

export interface EngineThread {
  readonly redis: RedisClient;
  /** Records the engine replayed from its data file (known once it answers; 0 before). */
  readonly replayed: number;
  /** Resolves once the engine thread runs (its data file replayed); rejects if it could not start. */
  readonly ready: Promise<void>;
  /** Closes the data file and ends the thread; calls still waiting fail. */
  close(): Promise<void>;
}

/**
 * The thread's entry: beside the bundle when bundled (scripts/build-node.ts writes
 * engine-thread.mjs next to dist/node.mjs), else the TypeScript source, compiled in the thread by
 * tsx as everywhere else in development and tests.
 */
function spawn(data: EngineThreadData): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./engine-thread.mjs', here), { workerData: data });
  const entry = new URL('./engine-thread-worker.ts', here).href;
  return new Worker(
    `import(${JSON.stringify(tsxApi(here))}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true, workerData: data },
  );
}

/** The URL of tsx's ESM API (`tsx/esm/api`, its `import` export), found from `from`. */
function tsxApi(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  const api = exports['./esm/api']?.import.default;
  if (api === undefined) throw new Error('tsx/esm/api not found: run `npm ci`');
  return pathToFileURL(join(dirname(manifest), api)).href;
}

interface Pending {
  resolve(value: RedisValue): void;
  reject(error: Error): void;
}

/**
 * @example
 * const thread = startEngineThread({ dataFile: '.data/engine.log' });
 * const queue = createQueueService({ redis: thread.redis, clock: systemClock });
 * await thread.close();
 */
export function startEngineThread(options: { dataFile?: string | undefined } = {}): EngineThread {
  const worker = spawn({ dataFile: options.dataFile || undefined });
  // The API's own handles keep the process alive; a forgotten engine must not.
  worker.unref();
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let replayed = 0;
  let down: Error | undefined;
  /** The calls of this tick, not yet sent. */
  let ids: number[] = [];
  let argvs: (readonly string[] | null)[] = [];
  let blocking: number[] | undefined;

  /** Fails every call still waiting, and every call from now on. */
  const fail = (error: Error) => {
    down ??= error;
    for (const call of pending.values()) call.reject(down);
    pending.clear();
  };

  let started: () => void;
  let refused: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    started = resolve;
    refused = reject;
  });
  // Nobody may wait for `ready`: the calls report a failed start themselves.
  ready.catch(() => undefined);
  let closed: (() => void) | undefined;

  worker.on('message', (message: FromEngine) => {
    if ('answers' in message) {
      const { ids, values, failures } = message.answers;
      let nextFailure = 0;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const failure = failures?.[nextFailure];
        const failed = failure !== undefined && failure.at === i;
        if (failed) nextFailure++;
        const call = pending.get(id);
        if (call === undefined) continue;
        pending.delete(id);
        if (!failed) call.resolve(values[i] ?? null);
        else if (failure.reply) call.reject(new RedisReplyError(failure.error));
        else call.reject(new Error(`The local engine failed: ${failure.error}`));
      }
    } else if ('ready' in message) {
      replayed = message.replayed;
      started();
    } else if ('failed' in message) {
      const error = new RedisUnavailableError(`The local engine could not start: ${message.failed}`);
      refused(error);
      fail(error);
    } else {
      closed?.();
    }
  });
  worker.on('error', (error) => {
    const failure = new RedisUnavailableError(`The local engine's thread failed: ${error.message}`, {
      cause: error,
    });
    refused(failure);
    fail(failure);
  });
  worker.on('exit', () => {
    const stopped = new RedisUnavailableError('The local engine has stopped');
    refused(stopped);
    fail(stopped);
  });

  /** Sends the calls of this tick in one message (see engine-thread-protocol.ts). */
  const flush = () => {
    const calls = blocking === undefined ? { ids, argvs } : { ids, argvs, blocking };
    ids = [];
    argvs = [];
    blocking = undefined;
    worker.postMessage({ calls } satisfies ToEngine);
  };
  const post = (id: number, argv: readonly string[] | null) => {
    if (ids.length === 0) queueMicrotask(flush);
    ids.push(id);
    argvs.push(argv);
  };

  const call = (argv: string[], isBlocking: boolean): { id: number; answer: Promise<RedisValue> } => {
    const id = nextId++;
    const answer = new Promise<RedisValue>((resolve, reject) => {
      if (down !== undefined) {
        reject(down);
        return;
      }
      pending.set(id, { resolve, reject });
      if (isBlocking) {
        blocking ??= [];
        blocking.push(id);
      }
      post(id, argv);
    });
    return { id, answer };
  };

  const redis: RedisClient = {
    evalsha: (sha, keys, args) => call(['EVALSHA', sha, String(keys.length), ...keys, ...args], false).answer,
    eval: (source, keys, args) => call(['EVAL', source, String(keys.length), ...keys, ...args], false).answer,
    // The engine's own blocking read; aborting withdraws it there, and it answers "nothing came".
    async blockingRead(keys, ids, blockMs, callOptions) {
      const signal = callOptions?.signal;
      const { id, answer } = call(blockingReadArgv(keys, ids, blockMs), true);
      const withdraw = () => post(id, null);
      if (signal?.aborted === true) withdraw();
      else signal?.addEventListener('abort', withdraw, { once: true });
      try {
        return (await answer) === 1;
      } finally {
        signal?.removeEventListener('abort', withdraw);
      }
    },
  };

  return {
    redis,
    get replayed() {
      return replayed;
    },
    ready,
    async close() {
      if (down === undefined) {
        const done = new Promise<void>((resolve) => {
          closed = resolve;
        });
        worker.postMessage({ close: true } satisfies ToEngine);
        // A thread that cannot answer any more is ended all the same.
        await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      }
      fail(new RedisUnavailableError('The local engine has stopped'));
      await worker.terminate();
    },
  };
}
