/** The fault suite (test/faults/support/suite.ts) on the ioredis TCP adapter through the proxy to the real Redis. */

import { stackKinds } from './support/stacks.ts';
import { describeFaultSuite } from './support/suite.ts';

describeFaultSuite(stackKinds[2] as (typeof stackKinds)[number]);
