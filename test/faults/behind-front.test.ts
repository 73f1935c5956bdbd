/**
 * The fault suite (test/faults/support/suite.ts) with the faults between the REST front and the
 * real Redis: the front's own ioredis connections are what breaks.
 *
 * When the front's connection to Redis is refused, restarted or cut mid-reply, the front answers
 * `500 {"error":"ERR backend failure: …"}`; @upstash/redis passes on that text only, so the
 * adapter (lib/redis/upstash-client.ts, on each transport) reads that wording as the endpoint failing: 503
 * REDIS_UNAVAILABLE, never a 500.
 */
import { stacksOf } from './support/stacks.ts';
import { describeFaultSuite } from './support/suite.ts';

for (const kind of stacksOf('behind-front')) describeFaultSuite(kind);
