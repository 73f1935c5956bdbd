/**
 * A message looked up by id, with its state. When the service documents a lookup route it
 * answers; otherwise the page puts the answer together from what every version has: the stream
 * entry (browse, admin), its pending entry in each group (pending with start = end = id), each
 * group's last delivered id, and the dead-letter stream (admin, scanned up to 10,000 entries).
 */
import { STREAM_ID_RULE } from '../../../queue/rules.ts';
import { ApiFailure, segment } from '../api.ts';
import type { ViewContext } from '../context.ts';
import { field, h, labelCells, replaceChildren, table } from '../dom.ts';
import { fill } from '../features.ts';
import { compareIds, json, relative, timestamp } from '../format.ts';
import type {
  DeadLetter,
  DeadLetters,
  Message,
  MessageLookup,
  Messages,
  Pending,
  QueueStats,
} from '../types.ts';

interface GroupState {
  group: string;
  state: string;
  holder: string;
  deliveries: string;
  when: string;
}

const dlqScanPages = 10;

async function findDeadLetter(
  context: ViewContext,
  queue: string,
  id: string,
): Promise<DeadLetter | undefined> {
  let cursor: string | null = null;
  for (let page = 0; page < dlqScanPages; page++) {
    const query: string = cursor === null ? '?count=1000' : `?count=1000&cursor=${segment(cursor)}`;
    const answer: DeadLetters = await context.api.get<DeadLetters>(
      `/v1/queues/${segment(queue)}/dlq${query}`,
    );
    const found = answer.deadLetters.find((letter) => letter.deadLetteredFrom === id || letter.id === id);
    if (found !== undefined || answer.cursor === null) return found;
    cursor = answer.cursor;
  }
  return undefined;
}

function definitions(pairs: [string, Node | string][]): HTMLElement {
  return h(
    'dl',
    { class: 'definitions' },
    ...pairs.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

function bodyBlock(value: unknown): HTMLElement {
  return h('pre', { class: 'body', tabindex: 0, 'aria-label': 'Message body' }, json(value));
}

async function composedLookup(context: ViewContext, queue: string, id: string): Promise<HTMLElement> {
  const base = `/v1/queues/${segment(queue)}`;
  const admin = context.access === 'admin';
  const stats = await context.api.get<QueueStats>(base);
  const entryRead: Promise<Message | undefined> = admin
    ? context.api
        .get<Messages>(`${base}/messages?start=${segment(id)}&end=${segment(id)}&count=1`)
        .then((answer) => answer.messages[0])
    : Promise.resolve(undefined);
  const groupsRead = Promise.all(
    stats.groups.map(async (group): Promise<GroupState> => {
      const { entries } = await context.api.get<Pending>(
        `${base}/groups/${segment(group.name)}/pending?start=${segment(id)}&end=${segment(id)}&count=1`,
      );
      const pending = entries[0];
      if (pending !== undefined) {
        return {
          group: group.name,
          state: pending.state === 'leased' ? 'pending: leased' : 'pending: retrying',
          holder: pending.consumer,
          deliveries: String(pending.deliveries),
          when:
            pending.state === 'leased'
              ? `lease expires ${relative(pending.eligibleAt, Date.now())}`
              : `redelivered ${relative(pending.eligibleAt, Date.now())}`,
        };
      }
      const done = compareIds(id, group.lastDeliveredId) <= 0;
      return {
        group: group.name,
        state: done ? 'not pending: acked (or before the group’s start)' : 'waiting: not yet delivered',
        holder: '—',
        deliveries: '—',
        when: '—',
      };
    }),
  );
  const letterRead = admin ? findDeadLetter(context, queue, id) : Promise.resolve(undefined);
  const [entry, groups, letter] = await Promise.all([entryRead, groupsRead, letterRead]);

  return renderLookup(queue, id, admin, entry, groups, letter);
}

/** The answer, however it was put together: a summary, the entry, its state per group. */
function renderLookup(
  queue: string,
  id: string,
  admin: boolean,
  entry: Pick<Message, 'body' | 'attributes' | 'enqueuedAt' | 'groupKey'> | undefined,
  groups: GroupState[],
  letter: DeadLetter | undefined,
): HTMLElement {
  const summary =
    letter !== undefined
      ? `Dead-lettered from group ${letter.group} after ${letter.deliveries} deliveries`
      : groups.some((g) => g.state.startsWith('pending'))
        ? `Pending in ${groups
            .filter((g) => g.state.startsWith('pending'))
            .map((g) => `${g.group} (${g.state.slice('pending: '.length)} by ${g.holder})`)
            .join(', ')}`
        : admin && entry === undefined
          ? `Not found in ${queue}: it never existed, was trimmed, or was deleted`
          : groups.length === 0
            ? 'In the stream; the queue has no consumer groups yet'
            : groups.every((g) => g.state.startsWith('not pending'))
              ? 'Delivered and acked by every group'
              : 'Waiting for delivery';
  const groupTable = table(`State of ${id} per group`, [
    'Group',
    'State',
    'Holder',
    'Deliveries',
    'Lease or retry',
  ]);
  for (const g of groups) {
    groupTable.body.append(
      h(
        'tr',
        { 'data-group': g.group },
        h('td', {}, g.group),
        h('td', { 'data-col': 'state' }, g.state),
        h('td', {}, g.holder),
        h('td', {}, g.deliveries),
        h('td', {}, g.when),
      ),
    );
  }
  labelCells(groupTable.body);
  const pairs: [string, Node | string][] = [['Message id', id]];
  if (!admin) pairs.push(['Stream entry', 'Reading the body needs an admin token']);
  else if (entry !== undefined) {
    pairs.push(['Enqueued', timestamp(entry.enqueuedAt)]);
    if (entry.groupKey !== undefined) pairs.push(['Group key', entry.groupKey]);
    pairs.push(['Attributes', json(entry.attributes)]);
    pairs.push(['Body', bodyBlock(entry.body)]);
  } else pairs.push(['Stream entry', 'Not in the stream']);
  if (letter !== undefined) {
    pairs.push(['Dead letter', `${letter.id}: ${letter.reason}, ${timestamp(letter.deadLetteredAt)}`]);
    if (entry === undefined) pairs.push(['Body', bodyBlock(letter.body)]);
  } else if (!admin) pairs.push(['Dead letter', 'Listing dead letters needs an admin token']);
  return h(
    'div',
    { class: 'lookup-result' },
    h('p', { class: 'lookup-state', 'data-testid': 'lookup-state' }, summary),
    definitions(pairs),
    groups.length > 0 && groupTable.wrap,
  );
}

/** A group's state from the documented lookup, in the words the composed one uses. */
function groupStateOf(g: MessageLookup['groups'][number]): GroupState {
  if (g.state === 'pending') {
    const leased = g.pendingState !== 'retrying';
    const when = g.eligibleAt === undefined ? '—' : relative(g.eligibleAt, Date.now());
    return {
      group: g.group,
      state: leased ? 'pending: leased' : 'pending: retrying',
      holder: g.consumer ?? '—',
      deliveries: g.deliveries === undefined ? '—' : String(g.deliveries),
      when: leased ? `lease expires ${when}` : `redelivered ${when}`,
    };
  }
  if (g.state === 'blocked') {
    return {
      group: g.group,
      state: 'waiting: blocked behind its key',
      holder: '—',
      deliveries: '—',
      when: g.blockedBy === undefined ? '—' : `after ${g.blockedBy}`,
    };
  }
  const words = {
    waiting: 'waiting: not yet delivered',
    acked: 'not pending: acked (or before the group’s start)',
    'dead-lettered': 'not pending: dead-lettered',
  } as const;
  return { group: g.group, state: words[g.state], holder: '—', deliveries: '—', when: '—' };
}

function isLookup(value: unknown): value is MessageLookup {
  const record = value as Partial<MessageLookup> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.state === 'string' &&
    Array.isArray(record.groups) &&
    Array.isArray(record.deadLetters)
  );
}

async function documentedLookup(context: ViewContext, queue: string, id: string): Promise<HTMLElement> {
  const operation = context.features.messageLookup;
  if (operation === undefined) throw new Error('no lookup route');
  const admin = context.access === 'admin';
  let answer: unknown;
  try {
    answer = await context.api.get<unknown>(fill(operation, [queue, id]));
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 404) {
      if (error.code === 'MESSAGE_NOT_FOUND') return renderLookup(queue, id, true, undefined, [], undefined);
      return h('p', { class: 'lookup-state', 'data-testid': 'lookup-state' }, `Not found: ${error.message}`);
    }
    throw error;
  }
  if (isLookup(answer) && answer.state === 'cancelled') {
    const at = answer.cancelledAt;
    return h(
      'div',
      { class: 'lookup-result' },
      h(
        'p',
        { class: 'lookup-state', 'data-testid': 'lookup-state' },
        `Cancelled${at === undefined ? '' : ` at ${timestamp(at)}`}: never delivered again`,
      ),
      definitions([
        ['body', bodyBlock(answer.body)],
        ['attributes', json(answer.attributes)],
        ['enqueued', timestamp(answer.enqueuedAt)],
      ]),
    );
  }
  if (isLookup(answer)) {
    const entry = answer.state === 'stream' ? answer : undefined;
    return renderLookup(queue, id, admin, entry, answer.groups.map(groupStateOf), answer.deadLetters[0]);
  }
  const record =
    typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : { value: answer };
  const state = record.state;
  return h(
    'div',
    { class: 'lookup-result' },
    h(
      'p',
      { class: 'lookup-state', 'data-testid': 'lookup-state' },
      typeof state === 'string' ? `State: ${state}` : 'Found',
    ),
    definitions(
      Object.entries(record).map(([key, value]): [string, Node | string] => [
        key,
        key === 'body' ? bodyBlock(value) : typeof value === 'string' ? value : json(value),
      ]),
    ),
  );
}

/** The lookup form and its result for one queue. */
export function lookupPanel(context: ViewContext, queue: string): HTMLElement {
  const input = h('input', {
    name: 'id',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: STREAM_ID_RULE.example,
  });
  const result = h('div', { class: 'lookup-output', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', 'data-action': 'lookup' }, 'Look up');
  const run = async () => {
    const id = input.value.trim();
    if (/^delayed-\d+$/.test(id)) {
      replaceChildren(
        result,
        h(
          'p',
          { class: 'form-problem' },
          'A delayed message’s token is not a stream id: it gets one when it is due.',
        ),
      );
      return;
    }
    if (!STREAM_ID_RULE.pattern.test(id)) {
      replaceChildren(result, h('p', { class: 'form-problem' }, `The id must be ${STREAM_ID_RULE.text}.`));
      input.focus();
      return;
    }
    submit.disabled = true;
    replaceChildren(result, h('p', { class: 'muted' }, 'Looking up…'));
    try {
      replaceChildren(
        result,
        context.features.messageLookup === undefined
          ? await composedLookup(context, queue, id)
          : await documentedLookup(context, queue, id),
      );
    } catch (error) {
      replaceChildren(result);
      context.fail(error);
    } finally {
      submit.disabled = false;
    }
  };
  return h(
    'div',
    {},
    h(
      'form',
      {
        class: 'inline-form',
        'aria-label': `Look up a message of ${queue} by id`,
        onsubmit: (event: Event) => {
          event.preventDefault();
          void run();
        },
      },
      field('Message id', input),
      submit,
    ),
    result,
  );
}
