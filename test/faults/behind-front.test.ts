/** The fault suite (test/faults/support/suite.ts) with the faults between the REST front and the real Redis. */
import { stackKinds } from './support/stacks.ts';
import { describeFaultSuite } from './support/suite.ts';

describeFaultSuite(stackKinds[3] as (typeof stackKinds)[number]);
