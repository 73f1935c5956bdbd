/** The fault suite (test/faults/support/suite.ts) on the Upstash REST adapter through the proxy to the REST front forwarding to the real Redis. */

import { stackKinds } from './support/stacks.ts';
import { describeFaultSuite } from './support/suite.ts';

describeFaultSuite(stackKinds[1] as (typeof stackKinds)[number]);
