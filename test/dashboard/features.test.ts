/**
 * The page's pure pieces: which later operations it finds in an OpenAPI document (and that
 * today's document offers none of them), how it fills their paths, and how it orders stream ids
 * and writes durations.
 */
import { describe, expect, it } from 'vitest';
import { detectFeatures, fill, perQueue } from '../../lib/dashboard/page/features.ts';
import { compareIds, duration, relative } from '../../lib/dashboard/page/format.ts';
import { createHarness } from '../api/support/harness.ts';

const op = (operationId?: string) => ({
  responses: {},
  ...(operationId === undefined ? {} : { operationId }),
});

describe('detectFeatures', () => {
  it('finds lookup, pause and resume, schedules and group keys in the document the service serves today', async () => {
    const h = await createHarness();
    const document = (await h.call('GET', '/openapi.json', { token: null })).json;
    expect(detectFeatures(document)).toEqual({
      messageLookup: { method: 'GET', path: '/v1/queues/{queue}/messages/{id}', operationId: 'getMessage' },
      pauseQueue: { method: 'POST', path: '/v1/queues/{queue}/pause', operationId: 'pauseQueue' },
      resumeQueue: { method: 'POST', path: '/v1/queues/{queue}/resume', operationId: 'resumeQueue' },
      listSchedules: { method: 'GET', path: '/v1/queues/{queue}/schedules', operationId: 'listSchedules' },
      createSchedule: {
        method: 'PUT',
        path: '/v1/queues/{queue}/schedules/{name}',
        operationId: 'createSchedule',
      },
      deleteSchedule: {
        method: 'DELETE',
        path: '/v1/queues/{queue}/schedules/{name}',
        operationId: 'deleteSchedule',
      },
      groupKeys: true,
      rateLimits: true,
    });
  });

  it('offers group keys only when the document’s MessageInput has them', () => {
    const schemas = (properties: Record<string, unknown>) => ({
      components: { schemas: { MessageInput: { properties } } },
    });
    expect(detectFeatures(schemas({ body: {}, groupKey: {} })).groupKeys).toBe(true);
    expect(detectFeatures(schemas({ body: {}, partitionKey: {} })).groupKeys).toBeUndefined();
    expect(detectFeatures({}).groupKeys).toBeUndefined();
  });

  it('shows rate limit windows only when the document’s GroupStats has them', () => {
    const schemas = (properties: Record<string, unknown>) => ({
      components: { schemas: { GroupStats: { properties } } },
    });
    expect(detectFeatures(schemas({ name: {}, rateLimitUsed: {} })).rateLimits).toBe(true);
    expect(detectFeatures(schemas({ name: {}, keyedWaiting: {} })).rateLimits).toBeUndefined();
    expect(detectFeatures({}).rateLimits).toBeUndefined();
  });

  it('finds each later operation by its operationId, wherever its path is', () => {
    const features = detectFeatures({
      paths: {
        '/v1/queues/{queue}/messages/{messageId}': { get: op('getMessage') },
        '/v1/queues/{queue}/state': { put: op('pauseQueue'), delete: op('resumeQueue') },
        '/v1/cron': { get: op('listSchedules'), post: op('createSchedule') },
        '/v1/cron/{id}': { delete: op('deleteSchedule') },
      },
    });
    expect(features).toEqual({
      messageLookup: {
        method: 'GET',
        path: '/v1/queues/{queue}/messages/{messageId}',
        operationId: 'getMessage',
      },
      pauseQueue: { method: 'PUT', path: '/v1/queues/{queue}/state', operationId: 'pauseQueue' },
      resumeQueue: { method: 'DELETE', path: '/v1/queues/{queue}/state', operationId: 'resumeQueue' },
      listSchedules: { method: 'GET', path: '/v1/cron', operationId: 'listSchedules' },
      createSchedule: { method: 'POST', path: '/v1/cron', operationId: 'createSchedule' },
      deleteSchedule: { method: 'DELETE', path: '/v1/cron/{id}', operationId: 'deleteSchedule' },
    });
  });

  it('finds them by method and path shape when the operationIds are other names', () => {
    const features = detectFeatures({
      paths: {
        '/v1/queues/{name}/pause': { post: op('stopQueue') },
        '/v1/queues/{name}/resume': { post: op() },
        '/v1/queues/{name}/schedules': { get: op('schedulesOfQueue'), put: op() },
        '/v1/queues/{name}/schedules/{schedule}': { delete: op() },
        '/v1/queues/{name}/messages': { get: op('browseMessages') },
      },
    });
    expect(Object.keys(features).sort()).toEqual([
      'createSchedule',
      'deleteSchedule',
      'listSchedules',
      'pauseQueue',
      'resumeQueue',
    ]);
    expect(perQueue(features.listSchedules!)).toBe(true);
    expect(features.createSchedule).toEqual({ method: 'PUT', path: '/v1/queues/{name}/schedules' });
  });

  it('ignores a document without paths, and methods it does not call', () => {
    expect(detectFeatures({})).toEqual({});
    expect(detectFeatures({ paths: { '/v1/queues/{q}/pause': { patch: op('pauseQueue') } } })).toEqual({});
  });
});

describe('fill', () => {
  it('fills path parameters in order, encoded', () => {
    expect(fill({ method: 'GET', path: '/v1/queues/{queue}/messages/{id}' }, ['orders', '1-0'])).toBe(
      '/v1/queues/orders/messages/1-0',
    );
    expect(fill({ method: 'DELETE', path: '/v1/schedules/{id}' }, ['a/b c'])).toBe('/v1/schedules/a%2Fb%20c');
  });
});

describe('format', () => {
  it('orders stream ids as numbers, halves up to 2^64-1', () => {
    expect(compareIds('9-0', '10-0')).toBe(-1);
    expect(compareIds('10-2', '10-10')).toBe(-1);
    expect(compareIds('18446744073709551615-1', '18446744073709551615-0')).toBe(1);
    expect(compareIds('5-5', '5-5')).toBe(0);
  });

  it('writes durations a person reads at a glance', () => {
    expect([null, 850, 1234, 12_345, 65_000, 3_725_000, 90_061_000].map(duration)).toEqual([
      '—',
      '850 ms',
      '1.2 s',
      '12 s',
      '1 min 5 s',
      '1 h 2 min',
      '1 d 1 h',
    ]);
    expect(relative(11_000, 1000)).toBe('in 10 s');
    expect(relative(1000, 4000)).toBe('3.0 s ago');
  });
});
