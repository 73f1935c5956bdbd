/**
 * The token and what it may do. The token lives in this tab's sessionStorage only (gone when the
 * tab closes; never a cookie, never localStorage). What it may do is learned by asking: the queue
 * list needs consume (a produce-only token cannot watch), and the DLQ list needs admin, so a 403
 * there means a read-only view.
 */
import { type Api, ApiFailure, createApi, pageFailure, segment } from './api.ts';
import type { Queues } from './types.ts';

const storageKey = 'edge-stream-queue.dashboard.token';

export type Access = 'admin' | 'read-only';

export interface Session {
  readonly api: Api;
  readonly access: Access;
}

export function storedToken(): string | undefined {
  return sessionStorage.getItem(storageKey) ?? undefined;
}

export function forgetToken(): void {
  sessionStorage.removeItem(storageKey);
}

/** A queue name no one is likely to use, for the scope probe when there are no queues yet. */
const probeQueue = 'dashboard-scope-probe';

/**
 * Checks `token` against the service and learns its access; stores it only when it works.
 * Rejects with the ApiFailure that refused it (401 wrong token, 403 a produce-only token).
 */
export async function openSession(base: URL, token: string): Promise<{ session: Session; queues: Queues }> {
  const api = createApi(base, token);
  let queues: Queues;
  try {
    queues = await api.get<Queues>('/v1/queues');
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 403) {
      throw pageFailure(
        403,
        error.code,
        'This token can only produce messages; the dashboard needs a token with the consume scope (read-only view) or the admin scope',
        error.details,
      );
    }
    throw error;
  }
  let access: Access = 'admin';
  try {
    // A harmless read only admin may make; nothing is changed either way.
    await api.get(`/v1/queues/${segment(queues.queues[0]?.name ?? probeQueue)}/dlq?count=1`);
  } catch (error) {
    if (!(error instanceof ApiFailure) || error.status !== 403) throw error;
    access = 'read-only';
  }
  sessionStorage.setItem(storageKey, token);
  return { session: { api, access }, queues };
}
