/**
 * The SQS API's one error type and AWS's codes. Each code says how AWS reports it: the short
 * shape name the JSON protocol puts in `__type`, the legacy query code SDKs read first from the
 * `x-amzn-query-error` header (and the query protocol puts in `<Code>`), the HTTP status and the
 * fault side. SDKs map these to their typed exceptions (QueueDoesNotExist, ReceiptHandleIsInvalid…),
 * so the values are AWS's own, spelled exactly (shared/reference/sqs.md §3).
 */
import { CodedError } from '../errors.ts';

interface ErrorShape {
  /** The `__type` of the JSON protocol: namespace and shape name. */
  readonly type: string;
  /** The `x-amzn-query-error` code and the query protocol's `<Code>`. */
  readonly query: string;
  readonly status: number;
  readonly fault: 'Sender' | 'Receiver';
}

const sqs = (name: string, query: string, status = 400): ErrorShape => ({
  type: `com.amazonaws.sqs#${name}`,
  query,
  status,
  fault: 'Sender',
});
/** Errors SQS's model does not list: AWS answers them from its common service layer. */
const common = (name: string, query: string, status = 400, fault: 'Sender' | 'Receiver' = 'Sender') => ({
  type: `com.amazon.coral.service#${name}`,
  query,
  status,
  fault,
});
const legacy = 'AWS.SimpleQueueService.';

export const SqsErrorCode = {
  queueDoesNotExist: 'QueueDoesNotExist',
  queueNameExists: 'QueueNameExists',
  receiptHandleIsInvalid: 'ReceiptHandleIsInvalid',
  messageNotInflight: 'MessageNotInflight',
  batchEntryIdsNotDistinct: 'BatchEntryIdsNotDistinct',
  emptyBatchRequest: 'EmptyBatchRequest',
  invalidBatchEntryId: 'InvalidBatchEntryId',
  tooManyEntriesInBatchRequest: 'TooManyEntriesInBatchRequest',
  batchRequestTooLong: 'BatchRequestTooLong',
  unsupportedOperation: 'UnsupportedOperation',
  invalidAttributeName: 'InvalidAttributeName',
  invalidAttributeValue: 'InvalidAttributeValue',
  invalidMessageContents: 'InvalidMessageContents',
  invalidAddress: 'InvalidAddress',
  resourceNotFound: 'ResourceNotFoundException',
  invalidParameterValue: 'InvalidParameterValue',
  missingParameter: 'MissingParameter',
  invalidAction: 'InvalidAction',
  missingAction: 'MissingAction',
  accessDenied: 'AccessDenied',
  invalidClientTokenId: 'InvalidClientTokenId',
  signatureDoesNotMatch: 'SignatureDoesNotMatch',
  missingAuthenticationToken: 'MissingAuthenticationToken',
  incompleteSignature: 'IncompleteSignature',
  contentSha256Mismatch: 'XAmzContentSHA256Mismatch',
  serialization: 'SerializationException',
  requestTooLarge: 'RequestEntityTooLarge',
  requestTimeout: 'RequestTimeout',
  internalFailure: 'InternalFailure',
  serviceUnavailable: 'ServiceUnavailable',
} as const;

export type SqsErrorCode = (typeof SqsErrorCode)[keyof typeof SqsErrorCode];

export const SQS_ERROR_SHAPES: Record<SqsErrorCode, ErrorShape> = {
  QueueDoesNotExist: sqs('QueueDoesNotExist', `${legacy}NonExistentQueue`),
  QueueNameExists: sqs('QueueNameExists', 'QueueAlreadyExists'),
  ReceiptHandleIsInvalid: sqs('ReceiptHandleIsInvalid', 'ReceiptHandleIsInvalid', 404),
  MessageNotInflight: sqs('MessageNotInflight', `${legacy}MessageNotInflight`),
  BatchEntryIdsNotDistinct: sqs('BatchEntryIdsNotDistinct', `${legacy}BatchEntryIdsNotDistinct`),
  EmptyBatchRequest: sqs('EmptyBatchRequest', `${legacy}EmptyBatchRequest`),
  InvalidBatchEntryId: sqs('InvalidBatchEntryId', `${legacy}InvalidBatchEntryId`),
  TooManyEntriesInBatchRequest: sqs('TooManyEntriesInBatchRequest', `${legacy}TooManyEntriesInBatchRequest`),
  BatchRequestTooLong: sqs('BatchRequestTooLong', `${legacy}BatchRequestTooLong`),
  UnsupportedOperation: sqs('UnsupportedOperation', `${legacy}UnsupportedOperation`),
  InvalidAttributeName: sqs('InvalidAttributeName', 'InvalidAttributeName'),
  InvalidAttributeValue: sqs('InvalidAttributeValue', 'InvalidAttributeValue'),
  InvalidMessageContents: sqs('InvalidMessageContents', 'InvalidMessageContents'),
  InvalidAddress: sqs('InvalidAddress', 'InvalidAddress', 404),
  ResourceNotFoundException: sqs('ResourceNotFoundException', 'ResourceNotFoundException', 404),
  InvalidParameterValue: common('InvalidParameterValueException', 'InvalidParameterValue'),
  MissingParameter: common('MissingRequiredParameterException', 'MissingParameter'),
  InvalidAction: common('InvalidActionException', 'InvalidAction'),
  MissingAction: common('MissingActionException', 'MissingAction'),
  AccessDenied: common('AccessDeniedException', 'AccessDenied', 403),
  InvalidClientTokenId: common('InvalidClientTokenIdException', 'InvalidClientTokenId', 403),
  SignatureDoesNotMatch: common('SignatureDoesNotMatchException', 'SignatureDoesNotMatch', 403),
  MissingAuthenticationToken: common(
    'MissingAuthenticationTokenException',
    'MissingAuthenticationToken',
    403,
  ),
  IncompleteSignature: common('IncompleteSignatureException', 'IncompleteSignature'),
  XAmzContentSHA256Mismatch: common('XAmzContentSHA256MismatchException', 'XAmzContentSHA256Mismatch'),
  SerializationException: common('SerializationException', 'SerializationException'),
  RequestEntityTooLarge: common('RequestEntityTooLargeException', 'RequestEntityTooLarge', 413),
  RequestTimeout: common('RequestTimeoutException', 'RequestTimeout', 408),
  InternalFailure: common('InternalFailure', 'InternalFailure', 500, 'Receiver'),
  ServiceUnavailable: common('ServiceUnavailableException', 'ServiceUnavailable', 503, 'Receiver'),
};

/** What the SQS actions throw; the protocol layer turns it into AWS's error answer. */
export class SqsError extends CodedError<SqsErrorCode> {
  override name = 'SqsError';
}

/** `Value <v> for parameter <name> is invalid. Reason: <reason>` as AWS words it. */
export function invalidValue(name: string, value: unknown, reason: string): SqsError {
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  return new SqsError(
    SqsErrorCode.invalidParameterValue,
    `Value ${shown} for parameter ${name} is invalid. Reason: ${reason}`,
  );
}

export function missing(name: string): SqsError {
  return new SqsError(SqsErrorCode.missingParameter, `The request must contain the parameter ${name}.`);
}

export function queueDoesNotExist(): SqsError {
  return new SqsError(SqsErrorCode.queueDoesNotExist, 'The specified queue does not exist.');
}
