/**
 * One API operation as a transport call: its method and path from the route table
 * (lib/api/operations.ts), its parameters filled in, its query and body and answer typed as the
 * table says. The client's methods and the dashboard call the API only through this.
 */
import {
  type OperationAnswer,
  type OperationBody,
  type OperationId,
  type OperationQuery,
  operationPath,
  operations,
  type PathParams,
} from '../api/operations.ts';
import type { CallSpec, Transport } from './transport.ts';

/** What a call of operation K takes besides its method and path. */
export interface OperationCall<K extends OperationId>
  extends Omit<CallSpec, 'method' | 'path' | 'query' | 'body'> {
  params: PathParams<K>;
  query?: OperationQuery<K>;
  body?: OperationBody<K>;
}

/**
 * @example
 * const { acked } = await callOperation(transport, 'ackMessages', { params: { queue, group }, body: { ids }, safe: true });
 */
export function callOperation<K extends OperationId>(
  transport: Transport,
  id: K,
  call: OperationCall<K>,
): Promise<OperationAnswer<K>> {
  const { params, query, body, ...rest } = call;
  return transport.call<OperationAnswer<K>>({
    ...rest,
    method: operations[id].method.toUpperCase() as CallSpec['method'],
    path: operationPath(id, params),
    ...(query === undefined ? {} : { query: query as NonNullable<CallSpec['query']> }),
    ...(body === undefined ? {} : { body }),
  });
}
