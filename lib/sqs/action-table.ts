/** Every SQS action this endpoint answers, by the name SDKs send (`X-Amz-Target`, `Action=`). */
import type { Action } from './action.ts';
import { deadLetterActions } from './actions/dead-letters.ts';
import { permissionActions } from './actions/permissions.ts';
import { queueActions } from './actions/queues.ts';
import { receiveActions } from './actions/receive.ts';
import { sendActions } from './actions/send.ts';
import { settleActions } from './actions/settle.ts';
import { tagActions } from './actions/tags.ts';

const table = new Map<string, Action>(
  Object.entries({
    ...queueActions,
    ...sendActions,
    ...receiveActions,
    ...settleActions,
    ...tagActions,
    ...deadLetterActions,
    ...permissionActions,
  }),
);

export function findAction(name: string): Action | undefined {
  return table.get(name);
}

export const ACTION_NAMES: readonly string[] = [...table.keys()].sort();
