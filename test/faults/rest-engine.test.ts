/** The fault suite (test/faults/support/suite.ts) on the Upstash REST adapter through the proxy to the REST front over the in-memory engine. */

import { stackKinds } from './support/stacks.ts';
import { describeFaultSuite } from './support/suite.ts';

describeFaultSuite(stackKinds[0] as (typeof stackKinds)[number]);
