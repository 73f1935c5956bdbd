/**
 * An `@upstash/redis` client on a `Requester` of our own (rest-requester.ts), with the options the
 * library ignores in that case: given a requester, its constructor keeps every default —
 * automatic deserialisation on, auto-pipelining off — whatever is passed. This sets both, as the
 * URL-and-token constructor would.
 */
import { Redis, type Requester } from '@upstash/redis';

export interface RedisOnOptions {
  /** JSON-parse replies (the library's default); off gives the exact strings Redis holds. */
  automaticDeserialization?: boolean;
  /** Send commands issued in the same tick as one `/pipeline` request (the library's default). */
  enableAutoPipelining?: boolean;
  /** Send and follow the read-your-writes token (the library's default). */
  readYourWrites?: boolean;
}

class RedisOnRequester extends Redis {
  constructor(requester: Requester, options: RedisOnOptions) {
    super(requester);
    // Commands take their deserialisation from `opts`, which the requester constructor leaves unset.
    this.opts = { automaticDeserialization: options.automaticDeserialization ?? true };
    this.enableAutoPipelining = options.enableAutoPipelining ?? true;
    if (options.readYourWrites === false) requester.readYourWrites = false;
  }

  /** The client, or when auto-pipelining is on the batching proxy the library's constructor returns. */
  configured(): Redis {
    return this.enableAutoPipelining ? this.autoPipeline() : this;
  }
}

/**
 * @example
 * const redis = redisOn(createRestRequester({ url, token, transport: fetchTransport }), {
 *   automaticDeserialization: false,
 * });
 */
export function redisOn(requester: Requester, options: RedisOnOptions = {}): Redis {
  return new RedisOnRequester(requester, options).configured();
}
