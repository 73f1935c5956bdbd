/**
 * The faults the suite injects with the proxy, each with what a request that needs Redis should
 * get while it is on: served (latency under the deadline) or a 503 (everything else).
 */
import type { FaultProxy } from '../../support/fault-proxy.ts';
import { REDIS_TIMEOUT_MS } from './stacks.ts';

export interface Fault {
  readonly name: string;
  /** True when requests are still served while the fault is on. */
  readonly serves: boolean;
  /** Turns the fault on; the returned function lifts it (and resolves once Redis is reachable). */
  start(proxy: FaultProxy): () => Promise<void>;
}

/** One-way delays: a round trip adds twice this. */
const UNDER_MS = 25;
const OVER_MS = REDIS_TIMEOUT_MS + 100;
/** How long a restart keeps the port closed. */
export const RESTART_DOWN_MS = 500;

const heal = (proxy: FaultProxy) => async () => proxy.heal();

export const faults: readonly Fault[] = [
  {
    name: `latency under the deadline (${UNDER_MS} ms each way)`,
    serves: true,
    start(proxy) {
      proxy.setLatency(UNDER_MS);
      return heal(proxy);
    },
  },
  {
    name: `latency over the deadline (${OVER_MS} ms each way)`,
    serves: false,
    start(proxy) {
      proxy.setLatency(OVER_MS);
      return heal(proxy);
    },
  },
  {
    name: 'a stall (every byte held until released)',
    serves: false,
    start(proxy) {
      proxy.stall();
      return heal(proxy);
    },
  },
  {
    name: 'connections dropped mid-reply (after 5 bytes of each answer)',
    serves: false,
    start(proxy) {
      proxy.drop(5);
      return heal(proxy);
    },
  },
  {
    name: 'refused connections (open ones cut, new ones closed at once)',
    serves: false,
    start(proxy) {
      proxy.refuse(true);
      proxy.disconnectAll();
      return heal(proxy);
    },
  },
  {
    name: `a restart (closed, refused for ${RESTART_DOWN_MS} ms, then back on the same port)`,
    serves: false,
    start(proxy) {
      const back = proxy.restart(RESTART_DOWN_MS);
      return () => back;
    },
  },
];
