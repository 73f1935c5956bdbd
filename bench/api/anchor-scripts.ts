/**
 * The anchor Worker's scripts (bench/api/anchor-worker.ts): the benchmark loads them into the REST
 * front (SCRIPT LOAD) and gives the Worker their SHA-1s as bindings, so each request is one EVALSHA.
 */
export const anchorScripts = {
  /** KEYS: stream; ARGV: bodies. Returns the new ids. */
  produce:
    "local ids = {} for i = 1, #ARGV do ids[i] = redis.call('XADD', KEYS[1], '*', 'body', ARGV[i]) end return ids",
  /** KEYS: stream; ARGV: group, consumer, count. Returns XREADGROUP's reply. */
  consume:
    "return redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', ARGV[3], 'STREAMS', KEYS[1], '>')",
  /** KEYS: stream; ARGV: group, ...ids. Returns how many were acked. */
  ack: "return redis.call('XACK', KEYS[1], unpack(ARGV))",
} as const;
