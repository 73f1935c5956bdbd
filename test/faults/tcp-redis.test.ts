/** The fault suite (test/faults/support/suite.ts) on the ioredis TCP adapter through the proxy to the real Redis. */

import { stacksOf } from './support/stacks.ts';
import { describeFaultSuite } from './support/suite.ts';

for (const kind of stacksOf('tcp-redis')) describeFaultSuite(kind);
