/**
 * AWS's JSON 1.0 protocol as SQS speaks it: `X-Amz-Target: AmazonSQS.<Action>`, a JSON object in,
 * a JSON object out; errors as `{"__type", "message"}` with the `x-amzn-query-error` header that
 * SDKs read first (shared/reference/sqs.md §1, §3).
 */
import { SQS_ERROR_SHAPES, SqsError, SqsErrorCode } from './errors.ts';
import type { Input } from './params.ts';

export const JSON_CONTENT_TYPE = 'application/x-amz-json-1.0';
const TARGET_PREFIX = 'AmazonSQS.';

/** Whether a request speaks the JSON protocol (else the query protocol). */
export function isJsonRequest(headers: Headers): boolean {
  return (
    headers.has('x-amz-target') || (headers.get('content-type') ?? '').startsWith('application/x-amz-json')
  );
}

/** The action an `X-Amz-Target` names. */
export function jsonAction(headers: Headers): string {
  const target = headers.get('x-amz-target');
  if (target === null || target === '') {
    throw new SqsError(
      SqsErrorCode.missingAction,
      'The request must carry X-Amz-Target: AmazonSQS.<Action>.',
    );
  }
  if (!target.startsWith(TARGET_PREFIX)) {
    throw new SqsError(SqsErrorCode.invalidAction, `The action ${target} is not valid for this endpoint.`);
  }
  return target.slice(TARGET_PREFIX.length);
}

/** The input object; an empty body is `{}`. */
export function parseJsonInput(text: string): Input {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SqsError(SqsErrorCode.serialization, 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SqsError(SqsErrorCode.serialization, 'The request body must be a JSON object.');
  }
  return value as Input;
}

export function jsonSuccess(output: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(output), {
    status: 200,
    headers: { ...headers, 'content-type': JSON_CONTENT_TYPE },
  });
}

export function jsonError(error: SqsError, headers: Record<string, string>): Response {
  const shape = SQS_ERROR_SHAPES[error.code];
  return new Response(JSON.stringify({ __type: shape.type, message: error.message }), {
    status: shape.status,
    headers: {
      ...headers,
      'content-type': JSON_CONTENT_TYPE,
      'x-amzn-query-error': `${shape.query};${shape.fault}`,
    },
  });
}
