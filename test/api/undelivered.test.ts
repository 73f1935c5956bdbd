/**
 * The give-back seam: a consume answer that leased messages carries its give-back to the entry
 * point (and only such an answer), and on the web runtimes an answer whose body the runtime
 * cancels before its end gives them back, once, while one read to its end does not.
 */
import { describe, expect, it } from 'vitest';
import {
  giveBackIfCancelled,
  giveBackOf,
  keepBodyText,
  markUndeliverable,
} from '../../lib/api/undelivered.ts';
import { createHarness, tokens } from './support/harness.ts';

function marked(body: string, onGiveBack: () => void): Response {
  const response = new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  markUndeliverable(response, async () => onGiveBack());
  return response;
}

describe('giveBackIfCancelled', () => {
  it('gives back once when the runtime cancels the body before its end', async () => {
    let given = 0;
    const scheduled: Promise<void>[] = [];
    const response = giveBackIfCancelled(
      marked('x'.repeat(100_000), () => given++),
      (work) => scheduled.push(work),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel(new Error('client went away'));
    await Promise.all(scheduled);
    expect(given).toBe(1);
  });

  it('gives nothing back for a body read to its end', async () => {
    let given = 0;
    const response = giveBackIfCancelled(marked('{"messages":[]}', () => given++));
    expect(await response.text()).toBe('{"messages":[]}');
    expect(given).toBe(0);
  });

  it('leaves an answer without a give-back as it is', () => {
    const plain = new Response('{}');
    expect(giveBackIfCancelled(plain)).toBe(plain);
  });
});

describe('giveBackIfCancelled on an answer whose text is kept (routes/shared.ts json)', () => {
  function kept(body: string, onGiveBack: () => void): Response {
    const response = marked(body, onGiveBack);
    keepBodyText(response, body);
    return response;
  }

  it('gives back once when the runtime cancels the body before its end', async () => {
    let given = 0;
    const scheduled: Promise<void>[] = [];
    const response = giveBackIfCancelled(
      kept('x'.repeat(100_000), () => given++),
      (work) => scheduled.push(work),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.value?.length).toBe(64 * 1024);
    await reader.cancel(new Error('client went away'));
    await Promise.all(scheduled);
    expect(given).toBe(1);
  });

  it('passes the text on whole, multi-byte characters and 64 KiB slices included, and gives nothing back', async () => {
    let given = 0;
    const text = `{"messages":["${'é€😀'.repeat(20_000)}"]}`;
    const response = giveBackIfCancelled(kept(text, () => given++));
    expect(await response.text()).toBe(text);
    expect(given).toBe(0);
  });
});

describe('a consume answer', () => {
  it('carries a give-back that requeues what it delivered, and only when it delivered something', async () => {
    const h = await createHarness();
    expect((await h.call('PUT', '/v1/queues/gq/groups/g', { body: { start: '0' } })).status).toBe(201);
    const consume = () =>
      h.app.request('/v1/queues/gq/groups/g/consume', {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ consumer: 'c1', count: 10 }),
      });
    const empty = await consume();
    expect(giveBackOf(empty)).toBeUndefined();

    await h.call('POST', '/v1/queues/gq/messages', { body: { messages: [{ body: 1 }, { body: 2 }] } });
    const delivered = await consume();
    const giveBack = giveBackOf(delivered);
    expect(giveBack).toBeDefined();
    const pendingBefore = await h.call('GET', '/v1/queues/gq/groups/g/pending?count=10');
    expect(pendingBefore.json.entries.map((e: { state: string }) => e.state)).toEqual(['leased', 'leased']);
    await giveBack!();
    const pendingAfter = await h.call('GET', '/v1/queues/gq/groups/g/pending?count=10');
    expect(pendingAfter.json.entries.map((e: { state: string }) => e.state)).toEqual([
      'retrying',
      'retrying',
    ]);
    const again = await h.call('POST', '/v1/queues/gq/groups/g/consume', {
      body: { consumer: 'c2', count: 10 },
    });
    expect(
      again.json.messages.map((m: { body: unknown; deliveries: number }) => [m.body, m.deliveries]),
    ).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });
});
