/**
 * Prometheus text exposition: the queue gauges rendered from `stats()` (length, delayed, DLQ,
 * and per group pending, lag, consumers, oldest pending age, and the waiting grouped messages, their
 * keys and the oldest one's age) and this process's request counters.
 */
import type { QueueStats } from '../queue/types.ts';

/** Per-process HTTP counters; each isolate or process reports its own. */
export interface HttpMetrics {
  observe(method: string, route: string, status: number, durationMs: number): void;
  render(): string;
}

function label(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function labels(pairs: Record<string, string>): string {
  const text = Object.entries(pairs)
    .map(([key, value]) => `${key}="${label(value)}"`)
    .join(',');
  return text === '' ? '' : `{${text}}`;
}

export function createHttpMetrics(): HttpMetrics {
  const counts = new Map<string, { method: string; route: string; status: number; n: number; ms: number }>();
  return {
    observe(method, route, status, durationMs) {
      const key = `${method} ${route} ${status}`;
      const entry = counts.get(key) ?? { method, route, status, n: 0, ms: 0 };
      entry.n += 1;
      entry.ms += durationMs;
      counts.set(key, entry);
    },
    render() {
      const lines = [
        '# HELP http_requests_total Requests answered by this process.',
        '# TYPE http_requests_total counter',
      ];
      const seconds = [
        '# HELP http_request_duration_seconds_sum Time spent answering, by route.',
        '# TYPE http_request_duration_seconds_sum counter',
      ];
      for (const { method, route, status, n, ms } of counts.values()) {
        const l = labels({ method, route, status: String(status) });
        lines.push(`http_requests_total${l} ${n}`);
        seconds.push(`http_request_duration_seconds_sum${l} ${ms / 1000}`);
      }
      return `${lines.join('\n')}\n${seconds.join('\n')}\n`;
    },
  };
}

interface Gauge {
  name: string;
  help: string;
  samples: string[];
}

/** Renders queue gauges for every queue given; a null lag or age is left out, not faked as 0. */
export function renderQueueMetrics(all: readonly QueueStats[]): string {
  const gauge = (name: string, help: string): Gauge => ({ name, help, samples: [] });
  const length = gauge('queue_length', 'Entries in the queue stream.');
  const delayed = gauge('queue_delayed', 'Messages waiting for their delay to pass.');
  const dlq = gauge('queue_dead_letters', 'Messages in the dead-letter stream.');
  const paused = gauge('queue_paused', '1 while the queue is paused (consume delivers nothing), else 0.');
  const groupPaused = gauge('queue_group_paused', '1 while the group is paused, else 0.');
  const pending = gauge('queue_group_pending', 'Messages delivered to the group and not yet acked.');
  const lag = gauge('queue_group_lag', 'Entries not yet delivered to the group.');
  const consumers = gauge('queue_group_consumers', 'Consumers known to the group.');
  const oldest = gauge('queue_group_oldest_pending_age_seconds', 'Age of the longest-held pending message.');
  const keyedWaiting = gauge(
    'queue_group_keyed_waiting',
    "Grouped messages (groupKey) waiting in their key's line: for their turn or behind an earlier message of the key.",
  );
  const waitingKeys = gauge('queue_group_waiting_keys', 'Group keys with waiting messages.');
  const oldestKey = gauge(
    'queue_group_oldest_waiting_key_age_seconds',
    "Age of the oldest grouped message waiting in its key's line.",
  );
  const rateUsed = gauge(
    'queue_group_rate_limit_used',
    "Deliveries to the group in the current window of the queue's rateLimit (0 without one).",
  );
  const rateThrottled = gauge(
    'queue_group_rate_limit_throttled',
    'Whether the rateLimit held back deliveries to the group in the current window (1) or not (0).',
  );
  const throttledKeys = gauge(
    'queue_group_throttled_keys',
    'Group keys the keyRateLimit holds back until the current key window ends.',
  );
  for (const stats of all) {
    const q = labels({ queue: stats.name });
    length.samples.push(`${length.name}${q} ${stats.length}`);
    delayed.samples.push(`${delayed.name}${q} ${stats.delayed}`);
    dlq.samples.push(`${dlq.name}${q} ${stats.deadLetters}`);
    paused.samples.push(`${paused.name}${q} ${stats.paused ? 1 : 0}`);
    for (const group of stats.groups) {
      const g = labels({ queue: stats.name, group: group.name });
      pending.samples.push(`${pending.name}${g} ${group.pending}`);
      groupPaused.samples.push(`${groupPaused.name}${g} ${group.paused ? 1 : 0}`);
      if (group.lag !== null) lag.samples.push(`${lag.name}${g} ${group.lag}`);
      consumers.samples.push(`${consumers.name}${g} ${group.consumers}`);
      if (group.oldestPendingAgeMs !== null) {
        oldest.samples.push(`${oldest.name}${g} ${group.oldestPendingAgeMs / 1000}`);
      }
      keyedWaiting.samples.push(`${keyedWaiting.name}${g} ${group.keyedWaiting}`);
      waitingKeys.samples.push(`${waitingKeys.name}${g} ${group.waitingKeys}`);
      rateUsed.samples.push(`${rateUsed.name}${g} ${group.rateLimitUsed}`);
      rateThrottled.samples.push(`${rateThrottled.name}${g} ${group.rateLimitThrottled ? 1 : 0}`);
      throttledKeys.samples.push(`${throttledKeys.name}${g} ${group.throttledKeys}`);
      if (group.oldestWaitingKey !== null) {
        oldestKey.samples.push(`${oldestKey.name}${g} ${group.oldestWaitingKey.ageMs / 1000}`);
      }
    }
  }
  return [
    length,
    delayed,
    dlq,
    paused,
    pending,
    lag,
    consumers,
    oldest,
    groupPaused,
    keyedWaiting,
    waitingKeys,
    oldestKey,
    rateUsed,
    rateThrottled,
    throttledKeys,
  ]
    .map((g) => [`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`, ...g.samples].join('\n'))
    .join('\n')
    .concat('\n');
}
