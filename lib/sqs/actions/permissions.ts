/**
 * AddPermission and RemovePermission: SQS's queue policies grant other AWS accounts access. Here
 * access is the SQS_CREDENTIALS keys and their scopes, so both answer UnsupportedOperation.
 */
import { Scope } from '../../api/auth.ts';
import type { Action } from '../action.ts';
import { SqsError, SqsErrorCode } from '../errors.ts';

const unsupported: Action = {
  scope: Scope.admin,
  async run() {
    throw new SqsError(
      SqsErrorCode.unsupportedOperation,
      'Queue permissions are not supported: access is granted by the keys in SQS_CREDENTIALS and their scopes.',
    );
  },
};

export const permissionActions: Record<string, Action> = {
  AddPermission: unsupported,
  RemovePermission: unsupported,
};
