/**
 * The dashboard in a real headless Chromium against `npm start`: the Proof list of issue 16.
 * Sign in with a token (kept in sessionStorage only); a queue produced through the API appears
 * with the API's counts and follows it live; a dead letter redriven from the page is back in the
 * stream by the API's account; redrive all and purge ask first; a consume-scope token sees no
 * control that changes anything; a wrong token is told so in words; no view logs a console error;
 * every view is readable at 1280×800 and 390×844, labelled, and reachable by keyboard; views the
 * API documents later (pause/resume, lookup by id, schedules) appear when it does. Screenshots of
 * every view go to test-artifacts/dashboard/ (git-ignored).
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../runtimes/support/processes.ts';
import { auditPage, scrollsSideways, unreachableByTab } from './support/audit.ts';
import {
  type Browser,
  desktop,
  launchBrowser,
  type PageProblems,
  phone,
  type RecordedPage,
  screenshot,
} from './support/browser.ts';
import { plantDeadLetters, type Service, startService, tokens } from './support/service.ts';

let service: Service;
let browser: Browser;
/** Each test's pages, and the console lines each test expects from them (none unless it says). */
let opened: { recorded: RecordedPage; expected: string[] }[] = [];

beforeAll(async () => {
  [service, browser] = await Promise.all([startService(), launchBrowser()]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

afterEach(async () => {
  const pages = opened;
  opened = [];
  for (const { recorded, expected } of pages) {
    await recorded.page.close();
    expect(recorded.problems.lines).toEqual(expected);
  }
});

/** A new tab; `expected` lists the console lines this test's flow must produce, exactly. */
async function tab(expected: string[] = []): Promise<{ page: Page; problems: PageProblems }> {
  const recorded = await browser.newPage();
  opened.push({ recorded, expected });
  return recorded;
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(`${service.base}/dashboard`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function signedIn(token: string = tokens.admin, expected: string[] = []): Promise<Page> {
  const { page } = await tab(expected);
  await signIn(page, token);
  await page.getByRole('heading', { name: 'Queues', level: 2 }).waitFor();
  return page;
}

/** Goes to a view by its hash and waits for its heading. */
async function open(page: Page, hash: string, heading: string): Promise<void> {
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await page.getByRole('heading', { name: heading, level: 2, exact: true }).waitFor();
}

function text(page: Page, selector: string): Promise<string> {
  return page
    .locator(selector)
    .first()
    .textContent()
    .then((t) => (t ?? '').trim());
}

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 10_000, interval: 200 });

/** What Chromium logs for an answer of 401, 403 or 404 to the page's fetch, and what the recorder adds. */
function refused(status: 401 | 403 | 404, path: string, query = ''): string[] {
  const reason = status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found';
  return [
    `answer ${status}: GET ${path}`,
    `console error: Failed to load resource: the server responded with a status of ${status} (${reason}) @ ${service.base}${path}${query}`,
  ];
}

describe('dashboard in headless Chromium against npm start', () => {
  it('asks for a token, keeps it in this tab’s sessionStorage only, and signs out', async () => {
    const { page } = await tab();
    await page.goto(`${service.base}/dashboard`);
    await expect.poll(() => page.getByLabel('API token').isVisible()).toBe(true);
    await screenshot(page, 'sign-in-1280x800');
    await page.getByLabel('API token').fill(tokens.admin);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Queues', level: 2 }).waitFor();
    expect(await text(page, '[data-testid="access"]')).toBe('Admin');
    const storage = await page.evaluate(() => ({
      session: Object.entries(sessionStorage),
      local: localStorage.length,
      cookie: document.cookie,
    }));
    expect(storage).toEqual({
      session: [['edge-stream-queue.dashboard.token', tokens.admin]],
      local: 0,
      cookie: '',
    });
    expect(await page.context().cookies()).toEqual([]);
    // A reload keeps the tab's session; signing out forgets the token.
    await page.reload();
    await page.getByRole('heading', { name: 'Queues', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  }, 60_000);

  it('shows a queue produced through the API with the API’s counts, and follows it live', async () => {
    const queue = 'dash-orders';
    const produced = await service.call('POST', `/v1/queues/${queue}/messages`, {
      messages: [{ body: { order: 1 } }, { body: { order: 2 } }, { body: { order: 3 }, delayMs: 3_600_000 }],
    });
    expect(produced.status).toBe(201);
    await service.call('PUT', `/v1/queues/${queue}/groups/billing`, { start: '0' });
    await service.call('PUT', `/v1/queues/${queue}/groups/audit`, { start: '0' });
    const consumed = await service.call('POST', `/v1/queues/${queue}/groups/billing/consume`, {
      consumer: 'w1',
      count: 1,
    });
    expect(consumed.json.messages).toHaveLength(1);
    const stats = (await service.call('GET', `/v1/queues/${queue}`)).json;
    expect(stats).toMatchObject({ length: 2, delayed: 1, deadLetters: 0 });

    const page = await signedIn();
    const card = `[data-queue="${queue}"]`;
    await page.locator(card).waitFor();
    expect(await text(page, `${card} [data-stat="length"]`)).toBe(String(stats.length));
    expect(await text(page, `${card} [data-stat="delayed"]`)).toBe(String(stats.delayed));
    expect(await text(page, `${card} [data-stat="deadLetters"]`)).toBe(String(stats.deadLetters));
    const groupCells = (group: string) =>
      page.locator(`${card} tr[data-group="${group}"] td`).allTextContents();
    const billing = stats.groups.find((g: { name: string }) => g.name === 'billing');
    const audit = stats.groups.find((g: { name: string }) => g.name === 'audit');
    expect((await groupCells('billing')).slice(0, 4)).toEqual([
      'billing',
      String(billing.pending),
      String(billing.lag),
      String(billing.consumers),
    ]);
    expect((await groupCells('billing')).slice(0, 4)).toEqual(['billing', '1', '1', '1']);
    expect((await groupCells('audit')).slice(0, 4)).toEqual([
      'audit',
      String(audit.pending),
      String(audit.lag),
      String(audit.consumers),
    ]);
    expect((await groupCells('audit')).slice(0, 5)).toEqual(['audit', '0', '2', '0', '—']);
    expect((await groupCells('billing'))[4]).toMatch(/^\d+(\.\d)? (ms|s)$/);

    // Produced after the page loaded: the page shows it without a reload.
    await page.getByLabel('Refresh interval').selectOption('1000');
    await service.call('POST', `/v1/queues/${queue}/messages`, { messages: [{ body: 4 }, { body: 5 }] });
    await poll(() => text(page, `${card} [data-stat="length"]`)).toBe('4');
    await poll(() => groupCells('audit').then((cells) => cells[2])).toBe('4');
    await screenshot(page, 'queues-live-1280x800');
  }, 60_000);

  it('shows a queue’s groups, consumers, pending messages with holder, deliveries and lease expiry, and its chart', async () => {
    const queue = 'dash-pending';
    const produced = await service.call('POST', `/v1/queues/${queue}/messages`, {
      messages: [{ body: 'a' }, { body: 'b' }],
    });
    await service.call('PUT', `/v1/queues/${queue}/groups/workers`, { start: '0' });
    await service.call('POST', `/v1/queues/${queue}/groups/workers/consume`, { consumer: 'w7', count: 1 });
    const [first] = produced.json.ids as string[];
    const page = await signedIn();
    await page.getByLabel('Refresh interval').selectOption('1000');
    await open(page, `#/queue/${queue}`, `Queue ${queue}`);
    const pendingRow = page.locator(`tr[data-message="${first}"]`);
    await pendingRow.waitFor();
    const cells = await pendingRow.locator('td').allTextContents();
    expect(cells.slice(0, 5)).toEqual(['workers', first, 'w7', 'leased', '1']);
    // The default visibility timeout is 30 s: the lease expires within it.
    expect(cells[6]).toMatch(/^expires in (\d+(\.\d)? s)$/);
    expect(
      await page.locator('tr', { has: page.locator('td[data-col="consumer"]') }).allTextContents(),
    ).toEqual(['workersw71']);
    expect((await page.locator('tr[data-group="workers"] td').allTextContents()).slice(0, 4)).toEqual([
      'workers',
      '1',
      '1',
      '1',
    ]);
    // The chart samples while the page is open.
    await poll(() => text(page, '[data-testid="chart-summary"]')).toMatch(
      /^([2-9]|\d\d+) samples while this page is open; now depth 2, pending 1\.$/,
    );
    // Pause and resume are documented now, so an admin is offered both; schedules are per queue
    // (a panel of the queue view), so there is no global Schedules link.
    expect(await page.locator('[data-action="pause"], [data-action="resume"]').count()).toBe(2);
    expect(await page.getByRole('link', { name: 'Schedules' }).count()).toBe(0);
    await screenshot(page, 'queue-pending-1280x800');
  }, 60_000);

  it('looks up a message by id and says its state', async () => {
    const queue = 'dash-lookup';
    const produced = await service.call('POST', `/v1/queues/${queue}/messages`, {
      messages: [{ body: { n: 1 } }, { body: { n: 2 }, attributes: { kind: 'second' } }],
    });
    const [held, waiting] = produced.json.ids as string[];
    await service.call('PUT', `/v1/queues/${queue}/groups/g1`, { start: '0' });
    await service.call('POST', `/v1/queues/${queue}/groups/g1/consume`, { consumer: 'c1', count: 1 });
    // The lookup route answers 404 for a message the queue never had: Chromium logs that.
    const page = await signedIn(tokens.admin, refused(404, `/v1/queues/${queue}/messages/1-0`));
    await open(page, `#/queue/${queue}`, `Queue ${queue}`);
    const lookup = async (id: string) => {
      await page.getByLabel('Message id').fill(id);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.locator('[data-testid="lookup-state"]').waitFor();
      return text(page, '[data-testid="lookup-state"]');
    };
    expect(await lookup(held!)).toBe('Pending in g1 (leased by c1)');
    expect(await lookup(waiting!)).toBe('Waiting for delivery');
    expect(await text(page, '.lookup-result td[data-col="state"]')).toBe('waiting: not yet delivered');
    expect(await page.locator('.lookup-result pre.body').textContent()).toBe(
      JSON.stringify({ n: 2 }, null, 2),
    );
    await screenshot(page, 'lookup-1280x800');
    expect((await service.call('DELETE', `/v1/queues/${queue}/messages/${waiting}`)).status).toBe(200);
    expect(await lookup(held!)).toBe('Pending in g1 (leased by c1)');
    expect(await lookup(waiting!)).toMatch(
      /^Cancelled at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: never delivered again$/,
    );
    expect(await page.locator('.lookup-result pre.body').textContent()).toBe(
      JSON.stringify({ n: 2 }, null, 2),
    );
    expect(await lookup('1-0')).toBe(`Not found in ${queue}: it never existed, was trimmed, or was deleted`);
  }, 60_000);

  it('redrives a dead letter from the page, and the API then shows it back in the stream', async () => {
    const queue = 'dash-poison';
    const [id] = await plantDeadLetters(service, queue, [{ poison: true }]);
    const page = await signedIn();
    await open(page, `#/queue/${queue}/dlq`, `Dead letters of ${queue}`);
    const row = page.locator(`tr[data-from="${id}"]`);
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(1, 5)).toEqual([id, 'workers', '1', 'maxDeliveries']);
    expect(await row.locator('td[data-col="body"] summary').textContent()).toBe('{"poison":true}');
    expect(await row.locator('td[data-col="body"] pre').textContent()).toBe(
      JSON.stringify({ poison: true }, null, 2),
    );
    await screenshot(page, 'dead-letters-1280x800');

    await row.getByRole('button', { name: `Redrive dead letter` }).click();
    await poll(() => text(page, '[data-testid="status"]')).toBe(
      `Redrove ${id}: it is back in ${queue} as a new message`,
    );
    await poll(() => page.locator(`tr[data-from="${id}"]`).count()).toBe(0);

    // The API's account: no dead letter left, and a new message with the same body in the stream.
    expect((await service.call('GET', `/v1/queues/${queue}/dlq`)).json.deadLetters).toEqual([]);
    const stream = (await service.call('GET', `/v1/queues/${queue}/messages`)).json.messages as {
      id: string;
      body: unknown;
    }[];
    const back = stream.filter((m) => JSON.stringify(m.body) === '{"poison":true}' && m.id !== id);
    expect(back).toHaveLength(1);
    const stats = (await service.call('GET', `/v1/queues/${queue}`)).json;
    expect(stats.deadLetters).toBe(0);
    expect(stats.groups[0]).toMatchObject({ name: 'workers', lag: 1 });
    const redelivered = await service.call('POST', `/v1/queues/${queue}/groups/workers/consume`, {
      consumer: 'w2',
    });
    expect(redelivered.json.messages.map((m: { id: string }) => m.id)).toEqual([back[0]!.id]);
  }, 60_000);

  it('redrives all dead letters only after a confirmation, and purges only after another', async () => {
    const queue = 'dash-poison-all';
    await plantDeadLetters(service, queue, [{ n: 1 }, { n: 2 }]);
    const page = await signedIn();
    await open(page, `#/queue/${queue}/dlq`, `Dead letters of ${queue}`);
    await poll(() => page.locator('tr[data-dead-letter]').count()).toBe(2);

    await page.getByRole('button', { name: 'Redrive all…' }).click();
    const dialog = page.getByRole('dialog', { name: `Redrive all dead letters of ${queue}?` });
    await dialog.waitFor();
    await screenshot(page, 'redrive-all-confirmation-1280x800');
    // Escape cancels: nothing moved.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await service.call('GET', `/v1/queues/${queue}/dlq`)).json.deadLetters).toHaveLength(2);

    await page.getByRole('button', { name: 'Redrive all…' }).click();
    await dialog.getByRole('button', { name: 'Redrive all 2' }).click();
    await poll(() => text(page, '[data-testid="status"]')).toBe(`Redrove 2 dead letters back into ${queue}`);
    expect((await service.call('GET', `/v1/queues/${queue}/dlq`)).json.deadLetters).toEqual([]);
    const bodies = (await service.call('GET', `/v1/queues/${queue}/messages`)).json.messages.map(
      (m: { body: unknown }) => m.body,
    );
    expect(bodies.filter((b: { n?: number }) => b?.n === 1 || b?.n === 2)).toHaveLength(2);

    await plantDeadLetters(service, `${queue}-purge`, [{ n: 3 }]);
    await open(page, `#/queue/${queue}-purge/dlq`, `Dead letters of ${queue}-purge`);
    await poll(() => page.locator('tr[data-dead-letter]').count()).toBe(1);
    await page.getByRole('button', { name: 'Purge all…' }).click();
    const purge = page.getByRole('dialog', { name: `Purge the dead letters of ${queue}-purge?` });
    await purge.getByRole('button', { name: 'Cancel' }).click();
    expect((await service.call('GET', `/v1/queues/${queue}-purge/dlq`)).json.deadLetters).toHaveLength(1);
    await page.getByRole('button', { name: 'Purge all…' }).click();
    await purge.getByRole('button', { name: 'Purge 1' }).click();
    await poll(() => text(page, '[data-testid="status"]')).toBe(`Purged 1 dead letter of ${queue}-purge`);
    expect((await service.call('GET', `/v1/queues/${queue}-purge/dlq`)).json.deadLetters).toEqual([]);
  }, 90_000);

  it('gives a consume-scope token a read-only view with no control that changes anything', async () => {
    const queue = 'dash-readonly';
    await plantDeadLetters(service, queue, [{ keep: true }]);
    await service.call('POST', `/v1/queues/${queue}/messages`, { messages: [{ body: 'x' }] });
    // The scope probe: a DLQ read of the first queue, which only admin may make.
    const first = (await service.call('GET', '/v1/queues')).json.queues[0].name as string;
    const page = await signedIn(tokens.consume, refused(403, `/v1/queues/${first}/dlq`, '?count=1'));
    expect(await text(page, '[data-testid="access"]')).toBe('Read-only (consume scope)');
    const changing = /redrive|purge|delete|sweep|create|produce|pause|resume|save/i;
    const controls = async () => ({
      actions: await page
        .locator('[data-action]')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-action'))),
      buttons: (await page.getByRole('button').allTextContents()).filter((t) => changing.test(t)),
      forms: await page.locator('form').count(),
    });
    const readOnly = { actions: ['live', 'refresh-interval', 'sign-out'], buttons: [], forms: 0 };
    await page.locator(`[data-queue="${queue}"]`).waitFor();
    expect(await text(page, `[data-queue="${queue}"] [data-stat="deadLetters"]`)).toBe('1');
    expect(await controls()).toEqual(readOnly);
    await screenshot(page, 'read-only-queues-1280x800');

    await open(page, `#/queue/${queue}`, `Queue ${queue}`);
    await poll(() => text(page, '.view [data-stat="length"]')).toBe('1');
    // The lookup form is the one form left: it reads, it changes nothing.
    expect(await controls()).toEqual({ ...readOnly, actions: [...readOnly.actions, 'lookup'], forms: 1 });
    await screenshot(page, 'read-only-queue-1280x800');

    await open(page, `#/queue/${queue}/dlq`, `Dead letters of ${queue}`);
    await poll(() => text(page, '[data-testid="dlq-summary"]')).toBe('1 dead letter.');
    expect(await page.getByText('Listing dead letters needs an admin token').count()).toBe(1);
    expect(await controls()).toEqual(readOnly);
    await screenshot(page, 'read-only-dead-letters-1280x800');
    // The API refuses anyway.
    const refusedRedrive = await fetch(`${service.base}/v1/queues/${queue}/dlq/redrive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.consume}`, 'content-type': 'application/json' },
      body: '{"all":true}',
    });
    expect(refusedRedrive.status).toBe(403);
  }, 60_000);

  it('says in words when the token is wrong, or may only produce, and keeps neither', async () => {
    const { page } = await tab([...refused(401, '/v1/queues'), ...refused(403, '/v1/queues')]);
    await signIn(page, 'not-a-token');
    const problem = page.locator('[data-testid="sign-in-problem"]');
    await poll(() => problem.textContent()).toBe(
      "The service does not accept this token (401 UNAUTHORIZED: Unknown token). Check it for typos, or use one of the service's API_TOKENS (npm start prints a development token).",
    );
    expect(await problem.getAttribute('role')).toBe('alert');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    // Still asking, with the refused token selected for retyping.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token');
    await screenshot(page, 'wrong-token-1280x800');

    await page.getByLabel('API token').fill(tokens.produce);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await poll(() => problem.textContent()).toBe(
      'This token may not do that (403 FORBIDDEN: This token can only produce messages; the dashboard needs a token with the consume scope (read-only view) or the admin scope).',
    );
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  }, 60_000);

  it('keeps the view and says so when a refresh fails, and signs out when the token stops working', async () => {
    const queue = 'dash-outage';
    await service.call('POST', `/v1/queues/${queue}/messages`, { messages: [{ body: 1 }] });
    const { page } = await tab([
      'answer 503: GET /v1/queues',
      `console error: Failed to load resource: the server responded with a status of 503 (Service Unavailable) @ ${service.base}/v1/queues`,
      ...refused(401, '/v1/queues'),
    ]);
    await signIn(page, tokens.admin);
    await page.locator(`[data-queue="${queue}"]`).waitFor();
    await page.getByLabel('Refresh interval').selectOption('1000');
    let answer: 'real' | 503 | 401 = 'real';
    await page.route(/\/v1\/queues$/, (route) => {
      if (answer === 'real') return route.continue();
      const status = answer;
      // Once each: the next refresh gets the real answer again, or nothing more is asked.
      answer = 'real';
      return route.fulfill({
        status,
        json: {
          error:
            status === 503
              ? { code: 'REDIS_UNAVAILABLE', message: 'Redis did not answer within 3000 ms' }
              : { code: 'UNAUTHORIZED', message: 'Unknown token' },
        },
      });
    });
    answer = 503;
    await poll(() => text(page, '[data-testid="live-state"]')).toMatch(
      /^Refresh failed at [\d-]+ [\d:]+: Redis did not answer in time \(503 REDIS_UNAVAILABLE\)\. The dashboard keeps trying\.$/,
    );
    // The last good numbers stay on screen, and the next refresh recovers.
    expect(await text(page, `[data-queue="${queue}"] [data-stat="length"]`)).toBe('1');
    await poll(() => text(page, '[data-testid="live-state"]')).toMatch(/^Live; updated /);
    answer = 401;
    await poll(() => text(page, '[data-testid="sign-in-problem"]')).toBe(
      "Signed out: The service does not accept this token (401 UNAUTHORIZED: Unknown token). Check it for typos, or use one of the service's API_TOKENS (npm start prints a development token).",
    );
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  }, 60_000);

  describe('every view', () => {
    const queue = 'dash-views';
    const views = [
      { name: 'queues', hash: '#/', heading: 'Queues' },
      { name: 'queue', hash: `#/queue/${queue}`, heading: `Queue ${queue}` },
      { name: 'dead-letters', hash: `#/queue/${queue}/dlq`, heading: `Dead letters of ${queue}` },
      { name: 'not-found', hash: '#/nowhere', heading: 'No such page' },
    ];

    beforeAll(async () => {
      await plantDeadLetters(service, queue, [{ order: 7, note: 'card declined' }]);
      // Back to ordinary settings, so what follows stays pending.
      await service.call('PUT', `/v1/queues/${queue}`, { maxDeliveries: 5, visibilityTimeoutMs: 60_000 });
      await service.call('PUT', `/v1/queues/${queue}/groups/reports`, { start: '0' });
      await service.call('POST', `/v1/queues/${queue}/messages`, {
        messages: [1, 2, 3, 4].map((n) => ({ body: { order: n }, attributes: { tenant: 'acme' } })),
      });
      await service.call('POST', `/v1/queues/${queue}/groups/workers/consume`, { consumer: 'w1', count: 2 });
      await service.call('POST', `/v1/queues/${queue}/groups/reports/consume`, { consumer: 'r1', count: 1 });
    });

    it('logs no console error, page error or failed request on any view, dialogs and results included', async () => {
      // But the lookup route's 404 for a message the queue never had, which Chromium logs.
      const page = await signedIn(tokens.admin, refused(404, `/v1/queues/${queue}/messages/1-0`));
      for (const view of views) {
        await open(page, view.hash, view.heading);
        // Two refreshes of each view.
        await page.waitForTimeout(2500);
      }
      await open(page, `#/queue/${queue}`, `Queue ${queue}`);
      await page.getByLabel('Message id').fill('1-0');
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.locator('[data-testid="lookup-state"]').waitFor();
      await page.getByRole('button', { name: 'Show messages' }).click();
      await page.locator('tr[data-message]').first().waitFor();
      await page.getByRole('button', { name: `Delete group reports` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await open(page, `#/queue/${queue}/dlq`, `Dead letters of ${queue}`);
      await page.locator('td[data-col="body"] summary').first().click();
      await page.setViewportSize(phone);
      await open(page, '#/', 'Queues');
      await page.waitForTimeout(1000);
      await page.setViewportSize(desktop);
      // The recorder's lines are checked after the test: none.
    }, 60_000);

    it('is readable at 1280×800 and on a 390×844 phone: no view scrolls sideways; a screenshot of each', async () => {
      const page = await signedIn();
      for (const size of [desktop, phone]) {
        await page.setViewportSize(size);
        for (const view of views) {
          await open(page, view.hash, view.heading);
          await page.waitForTimeout(view.name === 'queue' ? 2500 : 300);
          expect(await scrollsSideways(page), `${view.name} at ${size.width}×${size.height}`).toBe(false);
          const heading = page.getByRole('heading', { name: view.heading, level: 2, exact: true });
          const box = await heading.boundingBox();
          expect(box !== null && box.x >= 0 && box.x + box.width <= size.width).toBe(true);
          // Every control of the view is on screen, not beyond its right edge (rows become cards).
          const offRight = await page.evaluate(
            (width) =>
              Array.from(document.querySelectorAll('main button, main a, main input, main select'))
                .filter((el) => el.getBoundingClientRect().width > 0)
                .filter((el) => el.getBoundingClientRect().right > width + 1)
                .map((el) => el.textContent),
            size.width,
          );
          expect(offRight, `${view.name} at ${size.width}×${size.height}`).toEqual([]);
          const path = await screenshot(page, `${view.name}-${size.width}x${size.height}`);
          expect(statSync(path).size).toBeGreaterThan(5000);
          // git check-ignore exits 0 for an ignored path: screenshots are never committed.
          execFileSync('git', ['check-ignore', '-q', path], { cwd: projectRoot });
        }
      }
      await page.setViewportSize(desktop);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API token').waitFor();
      await page.setViewportSize(phone);
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, 'sign-in-390x844');
    }, 90_000);

    it('has an audit that finds what it checks for (a page built to fail it)', async () => {
      const { page } = await tab();
      await page.setContent(`<!doctype html><html><body>
        <h1>One</h1><h1>Two</h1>
        <input id="a"><label for="missing">x</label><button></button>
        <button>Same</button><button>Same</button><button tabindex="-1" id="skipped">Skipped</button>
        <table><thead><tr><th>c</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>
        <div id="a"></div><span tabindex="3">t</span></body></html>`);
      expect(await auditPage(page)).toEqual([
        'the html element has no lang',
        '2 h1 elements',
        'id a is used 2 times',
        'label for=missing points at nothing',
        '<span> "t" has a positive tabindex',
        'a table without a caption',
        'a column header without scope=col',
        '<input id=a> "" has no accessible name',
        '<input id=a> "" has no label',
        '<button> "" has no accessible name',
        '2 buttons are all called "Same"',
      ]);
      expect(await unreachableByTab(page)).toEqual(['<button> "Skipped"']);
    });

    it('names every control, tells buttons apart, and reaches each control with Tab, on every view', async () => {
      const { page } = await tab();
      await page.goto(`${service.base}/dashboard`);
      await page.getByLabel('API token').waitFor();
      expect(await auditPage(page)).toEqual([]);
      expect(await unreachableByTab(page)).toEqual([]);
      await page.getByLabel('API token').fill(tokens.admin);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Queues', level: 2 }).waitFor();
      // Hold the views still while focus walks them.
      await page.getByLabel('Refresh live').uncheck();
      for (const view of views) {
        await open(page, view.hash, view.heading);
        await page.waitForTimeout(500);
        expect(await auditPage(page), view.name).toEqual([]);
        expect(await unreachableByTab(page), view.name).toEqual([]);
      }
      await open(page, `#/queue/${queue}/dlq`, `Dead letters of ${queue}`);
      await page.getByRole('button', { name: 'Purge all…' }).click();
      expect(await auditPage(page), 'the confirmation dialog').toEqual([]);
      await page.keyboard.press('Escape');
    }, 90_000);

    it('redrives a dead letter with the keyboard alone', async () => {
      const kept = (await service.call('GET', `/v1/queues/${queue}/dlq`)).json.deadLetters;
      expect(kept).toHaveLength(1);
      const page = await signedIn();
      await open(page, `#/queue/${queue}/dlq`, `Dead letters of ${queue}`);
      await page.locator('button[data-action="redrive"]').waitFor();
      let focused: string | null | undefined;
      for (let i = 0; i < 60 && focused !== 'redrive'; i++) {
        await page.keyboard.press('Tab');
        focused = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action);
      }
      expect(focused).toBe('redrive');
      await page.keyboard.press('Enter');
      await poll(async () => (await service.call('GET', `/v1/queues/${queue}/dlq`)).json.deadLetters).toEqual(
        [],
      );
      expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe(undefined);
    }, 60_000);
  });

  it('shows pause/resume, lookup by id and schedules once the API documents them (routes stubbed in the browser)', async () => {
    const queue = 'dash-later';
    const produced = await service.call('POST', `/v1/queues/${queue}/messages`, {
      messages: [{ body: 'later' }],
    });
    const [id] = produced.json.ids as string[];
    const document = (await service.call('GET', '/openapi.json')).json;
    const ok = { description: 'ok' };
    document.paths['/v1/queues/{queue}/pause'] = {
      post: { operationId: 'pauseQueue', responses: { 200: ok } },
    };
    document.paths['/v1/queues/{queue}/resume'] = {
      post: { operationId: 'resumeQueue', responses: { 200: ok } },
    };
    document.paths['/v1/queues/{queue}/messages/{id}'] = {
      get: { operationId: 'getMessage', responses: { 200: ok } },
    };
    // The service's own schedule routes are per queue; this stub documents global ones instead.
    delete document.paths['/v1/queues/{queue}/schedules'];
    delete document.paths['/v1/queues/{queue}/schedules/{name}'];
    document.paths['/v1/schedules'] = {
      get: { operationId: 'listSchedules', responses: { 200: ok } },
      post: { operationId: 'createSchedule', responses: { 201: ok } },
    };
    document.paths['/v1/schedules/{schedule}'] = {
      delete: { operationId: 'deleteSchedule', responses: { 200: ok } },
    };
    const calls: string[] = [];
    // The read-only sign-in at the end makes the scope probe's 403.
    const first = (await service.call('GET', '/v1/queues')).json.queues[0].name as string;
    const { page } = await tab(refused(403, `/v1/queues/${first}/dlq`, '?count=1'));
    await page.route('**/openapi.json', (route) => route.fulfill({ json: document }));
    await page.route(/\/v1\/queues\/dash-later\/(pause|resume)$/, (route) => {
      calls.push(
        `${route.request().method()} ${new URL(route.request().url()).pathname} ${route.request().postData()}`,
      );
      return route.fulfill({ json: { paused: route.request().url().endsWith('/pause') } });
    });
    await page.route(/\/v1\/queues\/dash-later$/, async (route) => {
      const real = await route.fetch();
      return route.fulfill({ response: real, json: { ...(await real.json()), paused: true } });
    });
    await page.route(/\/v1\/queues\/dash-later\/messages\/[^/?]+$/, (route) => {
      calls.push(`${route.request().method()} ${new URL(route.request().url()).pathname}`);
      return route.fulfill({ json: { id, state: 'delivered', group: 'workers', body: 'later' } });
    });
    await page.route(/\/v1\/schedules(\/[^/?]+)?$/, (route) => {
      const request = route.request();
      calls.push(
        `${request.method()} ${new URL(request.url()).pathname}${request.postData() ? ` ${request.postData()}` : ''}`,
      );
      if (request.method() === 'GET') {
        return route.fulfill({ json: { schedules: [{ id: 'nightly', queue, cron: '0 3 * * *' }] } });
      }
      return route.fulfill({ json: request.method() === 'DELETE' ? { deleted: true } : { id: 'hourly' } });
    });

    await signIn(page, tokens.admin);
    await page.getByRole('heading', { name: 'Queues', level: 2 }).waitFor();
    await page.getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('heading', { name: 'Schedules', level: 2 }).waitFor();
    await page.locator('tr[data-schedule="nightly"]').waitFor();
    expect(await page.locator('tr[data-schedule="nightly"] td').allTextContents()).toEqual([
      'nightly',
      'dash-later',
      '0 3 * * *',
      'Delete…',
    ]);
    await screenshot(page, 'schedules-1280x800');
    await page.getByRole('button', { name: 'Delete schedule nightly' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete schedule' }).click();
    await poll(() => text(page, '[data-testid="status"]')).toBe('Deleted schedule nightly');
    await page
      .getByLabel('Schedule (JSON, as the service documents it at /docs)')
      .fill('{"cron":"0 * * * *"}');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await poll(() => text(page, '[data-testid="status"]')).toBe('Schedule saved');

    await open(page, `#/queue/${queue}`, `Queue ${queue} Paused`);
    expect(await page.locator('[data-testid="paused"]').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Pause' }).click();
    await poll(() => text(page, '[data-testid="status"]')).toBe(`Paused ${queue}`);
    await page.getByRole('button', { name: 'Resume' }).click();
    await poll(() => text(page, '[data-testid="status"]')).toBe(`Resumed ${queue}`);
    await page.getByLabel('Message id').fill(id!);
    await page.getByRole('button', { name: 'Look up' }).click();
    await poll(() => text(page, '[data-testid="lookup-state"]')).toBe('State: delivered');
    await screenshot(page, 'queue-with-later-features-1280x800');
    expect(calls.filter((call) => !call.startsWith('GET /v1/schedules'))).toEqual([
      'DELETE /v1/schedules/nightly',
      'POST /v1/schedules {"cron":"0 * * * *"}',
      'POST /v1/queues/dash-later/pause {}',
      'POST /v1/queues/dash-later/resume {}',
      `GET /v1/queues/dash-later/messages/${id}`,
    ]);

    // Read-only: the later views show, their controls do not.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, tokens.consume);
    await page.getByRole('heading', { name: 'Queues', level: 2 }).waitFor();
    await open(page, `#/queue/${queue}`, `Queue ${queue} Paused`);
    expect(await page.locator('[data-action="pause"], [data-action="resume"]').count()).toBe(0);
    await open(page, '#/schedules', 'Schedules');
    await page.locator('tr[data-schedule="nightly"]').waitFor();
    expect(await page.getByRole('button', { name: /delete|save/i }).count()).toBe(0);
    expect(await page.locator('form').count()).toBe(0);
  }, 60_000);
});
