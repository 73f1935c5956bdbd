/**
 * A consume answer its client never takes, on any runtime: a queue filled with 250 KiB messages
 * (an answer larger than loopback's socket buffers, so writing it really fails), a consume over a
 * raw socket that reads a few bytes and resets, and the pending entries' states afterwards.
 */
import { connect } from 'node:net';
import { expect } from 'vitest';
import { api } from './processes.ts';

/** Messages of 250 KiB in `count`, produced 3 a request; resolves with their ids. */
export async function fillWithLargeMessages(
  base: string,
  token: string,
  queue: string,
  group: string,
  count: number,
): Promise<string[]> {
  expect((await api(base, token, 'PUT', `/v1/queues/${queue}/groups/${group}`, { start: '0' })).status).toBe(
    201,
  );
  const ids: string[] = [];
  const body = 'x'.repeat(250 * 1024);
  for (let produced = 0; produced < count; produced += 3) {
    const batch = Array.from({ length: Math.min(3, count - produced) }, () => ({ body }));
    const answer = await api(base, token, 'POST', `/v1/queues/${queue}/messages`, { messages: batch });
    expect(answer.status).toBe(201);
    ids.push(...answer.json.ids);
  }
  return ids;
}

/** A consume over a raw socket that reads a few bytes of the answer, then resets; resolves with the bytes read. */
export function consumeAndReset(base: string, token: string, queue: string, group: string): Promise<number> {
  const { hostname, port } = new URL(base);
  const body = JSON.stringify({ consumer: 'c1', count: 1000 });
  const head = [
    `POST /v1/queues/${queue}/groups/${group}/consume HTTP/1.1`,
    'Host: localhost',
    `Authorization: Bearer ${token}`,
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let read = 0;
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (socket.isPaused()) return;
      socket.pause();
      // Give the server time to fill every buffer between it and this socket.
      setTimeout(() => {
        socket.resetAndDestroy();
        resolve(read);
      }, 200);
    });
    socket.on('error', reject);
    socket.write(head + body);
  });
}

/**
 * Each pending entry's state (`leased` or `retrying`) by id; with `untilNoneLeased`, polled until
 * none is leased or 5 s passed (a give-back runs once the runtime reports the failed write).
 */
export async function pendingStates(
  base: string,
  token: string,
  queue: string,
  group: string,
  untilNoneLeased = false,
): Promise<Record<string, string>> {
  let states: Record<string, string> = {};
  for (let i = 0; i < (untilNoneLeased ? 100 : 1); i++) {
    const pending = await api(base, token, 'GET', `/v1/queues/${queue}/groups/${group}/pending?count=1000`);
    states = Object.fromEntries(
      pending.json.entries.map((entry: { id: string; state: string }) => [entry.id, entry.state]),
    );
    if (Object.values(states).every((state) => state !== 'leased')) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return states;
}

/** What a given-back answer leaves: every message retrying, and another consumer gets all at once. */
export async function expectGivenBack(
  base: string,
  token: string,
  queue: string,
  group: string,
  ids: string[],
): Promise<void> {
  const states = await pendingStates(base, token, queue, group, true);
  expect(Object.keys(states).sort()).toEqual([...ids].sort());
  expect(new Set(Object.values(states))).toEqual(new Set(['retrying']));
  const again = await api(base, token, 'POST', `/v1/queues/${queue}/groups/${group}/consume`, {
    consumer: 'c2',
    count: 1000,
  });
  expect(again.json.messages.map((m: { id: string }) => m.id).sort()).toEqual([...ids].sort());
  expect(new Set(again.json.messages.map((m: { deliveries: number }) => m.deliveries))).toEqual(new Set([2]));
}

/** A consume answer read whole keeps its leases: nothing is given back by mistake. */
export async function expectKeptWhenTaken(
  base: string,
  token: string,
  queue: string,
  group: string,
  ids: string[],
  headers: Record<string, string> = {},
): Promise<void> {
  const response = await fetch(`${base}/v1/queues/${queue}/groups/${group}/consume`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ consumer: 'c1', count: 1000 }),
  });
  expect(((await response.json()) as { messages: unknown[] }).messages).toHaveLength(ids.length);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const states = await pendingStates(base, token, queue, group);
  expect(Object.keys(states).sort()).toEqual([...ids].sort());
  expect(new Set(Object.values(states))).toEqual(new Set(['leased']));
}
