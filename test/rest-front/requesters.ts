/**
 * The requesters `@upstash/redis` runs on in the client suites: the library's own (fetch), and
 * ours (lib/redis/rest-requester.ts) on each transport. Each records the URL of every request it
 * sends, so a suite can assert how calls were batched whatever carried them.
 */
import { Redis, type RedisConfigNodejs } from '@upstash/redis';
import { createRestRequester } from '../../lib/redis/rest-requester.ts';
import { redisOn } from '../../lib/redis/upstash-redis.ts';
import { transportKinds } from '../support/transports.ts';

export interface OpenRequester {
  /** A client on this requester with the library's URL-and-token options. */
  client(config: RedisConfigNodejs): Redis;
  /** URLs of the requests sent so far (clear it with `sent.length = 0`). */
  readonly sent: string[];
  close(): Promise<void>;
}

export interface RequesterKind {
  readonly name: string;
  open(): OpenRequester;
}

/** The library's own client; global fetch wrapped to record its requests until closed. */
const library: RequesterKind = {
  name: "the library's fetch requester",
  open() {
    const sent: string[] = [];
    const original = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      sent.push(input instanceof Request ? input.url : String(input));
      return original(input, init);
    };
    return {
      client: (config) => new Redis(config),
      sent,
      close: async () => {
        globalThis.fetch = original;
      },
    };
  },
};

const ours: RequesterKind[] = transportKinds.map((kind) => ({
  name: `our requester on ${kind.name}`,
  open() {
    const sent: string[] = [];
    const opened: { close(): Promise<void> }[] = [];
    return {
      client(config) {
        const { transport, close } = kind.open(config.url ?? '');
        opened.push({ close });
        const requester = createRestRequester({
          url: config.url ?? '',
          token: config.token ?? '',
          transport: (request) => {
            sent.push(request.url);
            return transport(request);
          },
          ...(config.responseEncoding === undefined ? {} : { responseEncoding: config.responseEncoding }),
        });
        return redisOn(requester, {
          ...(config.automaticDeserialization === undefined
            ? {}
            : { automaticDeserialization: config.automaticDeserialization }),
          ...(config.enableAutoPipelining === undefined
            ? {}
            : { enableAutoPipelining: config.enableAutoPipelining }),
          ...(config.readYourWrites === undefined ? {} : { readYourWrites: config.readYourWrites }),
        });
      },
      sent,
      async close() {
        for (const transport of opened) await transport.close();
      },
    };
  },
}));

export const requesterKinds: readonly RequesterKind[] = [library, ...ours];
