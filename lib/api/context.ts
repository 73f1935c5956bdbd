/**
 * What every route is given: the hono environment (per-request variables) and the resolved
 * dependencies of the app. Routes see only these, never the process environment.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Clock } from '../clock.ts';
import type { Limits, Timeouts } from '../queue/rules.ts';
import type { QueueService } from '../queue/types.ts';
import type { Scope } from './auth.ts';
import type { HttpMetrics } from './metrics.ts';
import type { RequestBudget } from './request-budget.ts';
import type { GiveBack } from './undelivered.ts';

export interface ApiEnv {
  Variables: {
    requestId: string;
    /** What the request's bearer token grants (empty before authentication). */
    scopes: ReadonlySet<Scope>;
    /** The request's time budget (lib/api/request-budget.ts). */
    budget: RequestBudget;
    /**
     * Set by a route whose answer leases messages: gives them back when the answer is not
     * delivered (lib/api/undelivered.ts).
     */
    giveBack: GiveBack | undefined;
  };
}

export type ApiApp = OpenAPIHono<ApiEnv>;

/** Where the app reports what it cannot answer for (unexpected errors, with the request id). */
export interface Logger {
  error(message: string, context: Record<string, unknown>): void;
  warn(message: string, context: Record<string, unknown>): void;
}

/** Waits `ms`; resolves early when `signal` aborts (the client went away). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RouteDeps {
  queue: QueueService;
  /** Resolves true when Redis answers; false or a rejection means it does not. */
  health: () => Promise<boolean>;
  timeouts: Timeouts;
  limits: Limits;
  logger: Logger;
  clock: Clock;
  sleep: Sleep;
  metrics: HttpMetrics;
}
