/**
 * The fault suite (test/faults/support/suite.ts) on the Upstash REST adapter (on fetch, on
 * Node's sockets as Node runs it, and on undici) through the proxy to the REST front forwarding to the real Redis.
 */

import { stacksOf } from './support/stacks.ts';
import { describeFaultSuite } from './support/suite.ts';

for (const kind of stacksOf('rest-redis')) describeFaultSuite(kind);
