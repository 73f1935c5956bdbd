/**
 * The route table (lib/api/operations.ts) against the OpenAPI document the app serves: every
 * documented operation is in the table under its operationId with the same method and path, and
 * the table names nothing the app does not serve. The routes spread the table's method and path
 * into createRoute, so this is what ties each route's operationId to its table entry.
 */
import { describe, expect, it } from 'vitest';
import { operationPath, operations } from '../../lib/api/operations.ts';
import { createHarness } from './support/harness.ts';

describe('the route table', () => {
  it('is exactly the operations the OpenAPI document lists, each with its method and path', async () => {
    const harness = await createHarness();
    const reply = await harness.call('GET', '/openapi.json', { token: null });
    const paths = reply.json.paths as Record<string, Record<string, { operationId?: string }>>;
    const documented: Record<string, { method: string; path: string }> = {};
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (operation.operationId !== undefined) documented[operation.operationId] = { method, path };
      }
    }
    expect(Object.keys(documented).length).toBeGreaterThanOrEqual(29);
    expect(documented).toEqual(operations);
  });

  it('fills path parameters as single encoded segments', () => {
    expect(operationPath('ackMessages', { queue: 'orders', group: 'billing' })).toBe(
      '/v1/queues/orders/groups/billing/ack',
    );
    expect(operationPath('getMessage', { queue: 'a/b', id: 'delayed-1?x' })).toBe(
      '/v1/queues/a%2Fb/messages/delayed-1%3Fx',
    );
    expect(operationPath('listQueues', {})).toBe('/v1/queues');
    expect(() => operationPath('getQueueStats', {} as { queue: string })).toThrow(
      'getQueueStats needs the path parameter queue',
    );
  });
});
