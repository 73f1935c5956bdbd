/**
 * One queue: its counts, depth and pending over time, its groups and their consumers, the
 * pending messages with holder, deliveries and lease expiry, a lookup by id, and for admin the
 * stream's messages, group creation and deletion, a produce form, pause/resume where the service
 * has it, and deleting the queue.
 */
import { CALL_RULES, NAME_RULE, STREAM_ID_RULE } from '../../../queue/rules.ts';
import { ApiFailure, pageFailure, segment } from '../api.ts';
import { createChart, recordSample } from '../chart.ts';
import { canChange, type View, type ViewContext } from '../context.ts';
import { cell, field, h, labelCells, replaceChildren, row, setText, syncRows, table } from '../dom.ts';
import { fill, perQueue, writeMethod } from '../features.ts';
import { count, duration, json, preview, relative, timestamp } from '../format.ts';
import type { GroupStats, Messages, Pending, PendingEntry, PendingSummary, QueueStats } from '../types.ts';
import { lookupPanel } from './lookup.ts';
import { produceForm } from './produce-form.ts';
import { schedulesPanel } from './schedules.ts';

/** Groups whose consumers and pending entries the page reads on each refresh. */
const maxDetailedGroups = 20;
const pendingPerGroup = 50;

interface GroupDetail {
  group: string;
  summary: PendingSummary;
  entries: PendingEntry[];
}

function section(id: string, title: string, ...children: (Node | false | undefined)[]): HTMLElement {
  return h('section', { class: 'panel', 'aria-labelledby': id }, h('h3', { id }, title), ...children);
}

/** A panel that spans the whole width of the grid (wide tables). */
function wide(panel: HTMLElement): HTMLElement {
  panel.classList.add('wide');
  return panel;
}

function statItem(name: string, label: string): HTMLElement {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', { 'data-stat': name }, '—'));
}

export function queueView(context: ViewContext, queue: string): View {
  const base = `/v1/queues/${segment(queue)}`;
  const admin = canChange(context);
  const refreshSoon = () => {
    view.refresh().catch(context.fail);
  };

  const confirmThen = async (
    options: { title: string; message: string; confirmLabel: string },
    action: () => Promise<string>,
  ) => {
    if (!(await context.confirm(options))) return;
    try {
      context.notify(await action());
      refreshSoon();
    } catch (error) {
      context.fail(error);
    }
  };

  // Counts.
  const stats = h(
    'dl',
    { class: 'stats' },
    statItem('length', 'Length'),
    statItem('delayed', 'Delayed'),
    statItem('deadLetters', 'Dead letters'),
    statItem('groups', 'Groups'),
  );
  const paused = h('span', { class: 'badge', hidden: true, 'data-testid': 'paused' }, 'Paused');
  const missing = h('p', { class: 'empty', hidden: true });

  // Pause and resume, when the service documents them.
  const toolbar = h('div', { class: 'toolbar' });
  const control = (label: string, action: string, operation: typeof context.features.pauseQueue) => {
    if (operation === undefined || !admin) return;
    const button = h('button', { type: 'button', class: 'secondary', 'data-action': action }, label);
    button.addEventListener('click', () => {
      button.disabled = true;
      context.api
        .send(
          writeMethod(operation),
          fill(operation, [queue]),
          operation.method === 'DELETE' ? undefined : {},
        )
        .then(() => {
          context.notify(`${label}d ${queue}`);
          refreshSoon();
        })
        .catch(context.fail)
        .finally(() => {
          button.disabled = false;
        });
    });
    toolbar.append(button);
  };
  control('Pause', 'pause', context.features.pauseQueue);
  control('Resume', 'resume', context.features.resumeQueue);
  if (admin) {
    toolbar.append(
      h(
        'a',
        { class: 'button-link', href: `#/queue/${encodeURIComponent(queue)}/dlq`, 'data-testid': 'dlq-link' },
        'Dead letters',
      ),
    );
  }

  const chart = createChart(queue);

  // Groups.
  const groups = table(`Consumer groups of ${queue}`, [
    'Group',
    'Pending',
    'Lag',
    'Consumers',
    'Oldest pending',
    'Last delivered id',
    ...(context.features.groupKeys === true ? ['Waiting in key lines'] : []),
    ...(context.features.rateLimits === true ? ['Rate window'] : []),
    ...(admin ? [''] : []),
  ]);
  const groupRow = (group: GroupStats) => {
    const cells: Record<string, Node | string> = {
      group: group.name,
      pending: '',
      lag: '',
      consumers: '',
      oldest: '',
      lastDelivered: '',
    };
    if (context.features.groupKeys === true) cells.keyed = '';
    if (context.features.rateLimits === true) cells.rate = '';
    if (admin) {
      const remove = h(
        'button',
        {
          type: 'button',
          class: 'danger small',
          'data-action': 'delete-group',
          'aria-label': `Delete group ${group.name}`,
        },
        'Delete…',
      );
      remove.addEventListener('click', () => {
        void confirmThen(
          {
            title: `Delete group ${group.name}?`,
            message: `Its pending entries and consumers go with it; the messages stay in ${queue}.`,
            confirmLabel: 'Delete group',
          },
          async () => {
            await context.api.send('DELETE', `${base}/groups/${segment(group.name)}`);
            return `Deleted group ${group.name}`;
          },
        );
      });
      cells.actions = remove;
    }
    const tr = row(cells);
    tr.dataset.group = group.name;
    return tr;
  };
  const updateGroupRow = (tr: HTMLElement, group: GroupStats) => {
    setText(cell(tr, 'pending'), count(group.pending));
    setText(cell(tr, 'lag'), count(group.lag));
    setText(cell(tr, 'consumers'), count(group.consumers));
    setText(cell(tr, 'oldest'), duration(group.oldestPendingAgeMs));
    setText(cell(tr, 'lastDelivered'), group.lastDeliveredId);
    if (context.features.groupKeys === true) {
      const oldest = group.oldestWaitingKey;
      setText(
        cell(tr, 'keyed'),
        oldest === null
          ? count(group.keyedWaiting)
          : `${count(group.keyedWaiting)} in ${count(group.waitingKeys)} keys, oldest ${oldest.groupKey} (${duration(oldest.ageMs)})`,
      );
    }
    if (context.features.rateLimits === true) {
      // Deliveries in the current window; "throttled" while the limit holds deliveries back.
      const held = group.throttledKeys > 0 ? `, ${count(group.throttledKeys)} keys held` : '';
      setText(
        cell(tr, 'rate'),
        `${count(group.rateLimitUsed)} delivered${group.rateLimitThrottled ? ', throttled' : ''}${held}`,
      );
    }
  };
  const noGroups = h('p', { class: 'muted' }, 'No consumer groups yet.');

  const createGroupForm = () => {
    const name = h('input', {
      name: 'group',
      required: true,
      maxlength: NAME_RULE.maxLength,
      autocomplete: 'off',
      spellcheck: 'false',
    });
    const start = h(
      'select',
      { name: 'start' },
      h('option', { value: '0' }, 'the whole backlog (0)'),
      h('option', { value: '$' }, 'only new messages ($)'),
    );
    const problem = h('p', { class: 'form-problem', role: 'alert' });
    return h(
      'form',
      {
        class: 'inline-form',
        'aria-label': `Create a consumer group on ${queue}`,
        onsubmit: (event: Event) => {
          event.preventDefault();
          problem.textContent = '';
          const group = name.value.trim();
          if (!NAME_RULE.pattern.test(group)) {
            problem.textContent = `The group name must be ${NAME_RULE.text}.`;
            name.focus();
            return;
          }
          context.api
            .send<{ created: boolean }>('PUT', `${base}/groups/${segment(group)}`, { start: start.value })
            .then((answer) => {
              context.notify(
                answer.created ? `Created group ${group}` : `Group ${group} already existed; unchanged`,
              );
              name.value = '';
              refreshSoon();
            })
            .catch(context.fail);
        },
      },
      field('New group', name),
      field('Reads', start),
      h('button', { type: 'submit', 'data-action': 'create-group' }, 'Create group'),
      problem,
    );
  };

  // Consumers and pending messages.
  const consumers = table(`Consumers holding messages of ${queue}`, ['Group', 'Consumer', 'Pending']);
  const noConsumers = h('p', { class: 'muted' }, 'No consumer holds a message.');
  const pending = table(`Pending messages of ${queue}`, [
    'Group',
    'Message id',
    'Holder',
    'State',
    'Deliveries',
    'Idle',
    'Lease expires / retry',
  ]);
  const noPending = h('p', { class: 'muted' }, 'Nothing pending.');
  const pendingNote = h('p', { class: 'muted small-print' });

  // The stream, for admin.
  const browseOutput = h('div', {});
  const browseForm = () => {
    const from = h('input', { name: 'from', value: '-', autocomplete: 'off', spellcheck: 'false' });
    const size = h(
      'select',
      { name: 'count' },
      ...[10, 25, 100].map((n) => h('option', { value: n }, String(n))),
    );
    let next: string | undefined;
    const more = h(
      'button',
      { type: 'button', class: 'secondary', hidden: true, 'data-action': 'browse-next' },
      'Next page',
    );
    const show = async (start: string) => {
      try {
        const { messages } = await context.api.get<Messages>(
          `${base}/messages?start=${segment(start)}&count=${Math.min(Number(size.value), CALL_RULES.count.max)}`,
        );
        const shown = table(`Messages of ${queue} from ${start}`, ['Id', 'Enqueued', 'Attributes', 'Body']);
        for (const message of messages) {
          shown.body.append(
            h(
              'tr',
              { 'data-message': message.id },
              h('td', {}, message.id),
              h('td', {}, timestamp(message.enqueuedAt)),
              h('td', {}, preview(message.attributes, 40)),
              h(
                'td',
                {},
                h(
                  'details',
                  {},
                  h('summary', {}, preview(message.body, 60)),
                  h('pre', { class: 'body' }, json(message.body)),
                ),
              ),
            ),
          );
        }
        labelCells(shown.body);
        const last = messages[messages.length - 1];
        next = last === undefined || messages.length < Number(size.value) ? undefined : `(${last.id}`;
        more.hidden = next === undefined;
        replaceChildren(
          browseOutput,
          messages.length === 0 ? h('p', { class: 'muted' }, 'No messages there.') : shown.wrap,
        );
      } catch (error) {
        context.fail(error);
      }
    };
    more.addEventListener('click', () => {
      if (next !== undefined) void show(next);
    });
    return h(
      'div',
      {},
      h(
        'form',
        {
          class: 'inline-form',
          'aria-label': `Browse the messages of ${queue}`,
          onsubmit: (event: Event) => {
            event.preventDefault();
            const start = from.value.trim() || '-';
            if (start !== '-' && !STREAM_ID_RULE.pattern.test(start)) {
              context.fail(pageFailure(400, 'INVALID_ARGUMENT', `From must be - or ${STREAM_ID_RULE.text}`));
              return;
            }
            void show(start);
          },
        },
        field('From id', from),
        field('Count', size),
        h('button', { type: 'submit', 'data-action': 'browse' }, 'Show messages'),
      ),
      browseOutput,
      more,
    );
  };

  const deleteQueueButton = () => {
    const button = h(
      'button',
      { type: 'button', class: 'danger', 'data-action': 'delete-queue' },
      `Delete queue ${queue}…`,
    );
    button.addEventListener('click', () => {
      void (async () => {
        const ok = await context.confirm({
          title: `Delete queue ${queue}?`,
          message:
            'Every message, group, pending entry and dead letter of this queue is removed. This cannot be undone.',
          confirmLabel: 'Delete queue',
        });
        if (!ok) return;
        try {
          await context.api.send('DELETE', base);
          context.notify(`Deleted queue ${queue}`);
          location.hash = '#/';
        } catch (error) {
          context.fail(error);
        }
      })();
    });
    return button;
  };

  // Listing a queue's schedules needs the admin scope, as every schedule route does.
  const schedules =
    admin && context.features.listSchedules !== undefined && perQueue(context.features.listSchedules)
      ? schedulesPanel(context, queue)
      : undefined;

  const element = h(
    'section',
    { class: 'view queue', 'aria-labelledby': 'view-title' },
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/' }, 'Queues'), ' / ', queue),
    h(
      'div',
      { class: 'view-head' },
      h('h2', { id: 'view-title', tabindex: -1 }, `Queue ${queue}`, ' ', paused),
      toolbar,
    ),
    missing,
    stats,
    h(
      'div',
      { class: 'panels' },
      section('chart-title', 'Depth and pending over time', chart.element),
      section('consumers-title', 'Consumers', noConsumers, consumers.wrap),
      wide(section('groups-title', 'Groups', noGroups, groups.wrap, admin && createGroupForm())),
      wide(section('pending-title', 'Pending messages', noPending, pending.wrap, pendingNote)),
      section('lookup-title', 'Look up a message', lookupPanel(context, queue)),
      admin &&
        section(
          'produce-title',
          'Produce a test message',
          produceForm(context, queue, () => refreshSoon()),
        ),
      admin && wide(section('browse-title', 'Messages in the stream', browseForm())),
      schedules !== undefined && wide(section('schedules-title', 'Schedules', schedules.element)),
      admin &&
        section(
          'danger-title',
          'Delete the queue',
          h('p', {}, 'Removes the stream, its groups, dead letters, delayed messages and config.'),
          deleteQueueButton(),
        ),
    ),
  );

  const showStats = (answer: QueueStats) => {
    recordSample(answer, Date.now());
    chart.update();
    const put = (name: string, value: string) => {
      const dd = stats.querySelector(`[data-stat="${name}"]`);
      if (dd !== null) setText(dd, value);
    };
    put('length', count(answer.length));
    put('delayed', count(answer.delayed));
    put('deadLetters', count(answer.deadLetters));
    put('groups', count(answer.groups.length));
    // A service from before pausing answers no `paused`: not paused.
    paused.hidden = answer.paused !== true;
    syncRows(groups.body, answer.groups, (g) => g.name, groupRow, updateGroupRow);
    noGroups.hidden = answer.groups.length > 0;
    groups.wrap.hidden = answer.groups.length === 0;
  };

  const showDetails = (details: GroupDetail[], total: number) => {
    const holders = details.flatMap((d) => d.summary.consumers.map((c) => ({ group: d.group, ...c })));
    syncRows(
      consumers.body,
      holders,
      (c) => `${c.group}/${c.name}`,
      (c) => row({ group: c.group, consumer: c.name, pending: '' }),
      (tr, c) => setText(cell(tr, 'pending'), count(c.pending)),
    );
    noConsumers.hidden = holders.length > 0;
    consumers.wrap.hidden = holders.length === 0;
    const now = Date.now();
    const entries = details.flatMap((d) => d.entries.map((e) => ({ group: d.group, ...e })));
    syncRows(
      pending.body,
      entries,
      (e) => `${e.group}/${e.id}`,
      (e) => {
        const tr = row({
          group: e.group,
          id: e.id,
          holder: '',
          state: '',
          deliveries: '',
          idle: '',
          eligible: '',
        });
        tr.dataset.message = e.id;
        return tr;
      },
      (tr, e) => {
        setText(cell(tr, 'holder'), e.consumer);
        setText(cell(tr, 'state'), e.state);
        setText(cell(tr, 'deliveries'), count(e.deliveries));
        setText(cell(tr, 'idle'), duration(e.idleMs));
        setText(
          cell(tr, 'eligible'),
          e.state === 'leased'
            ? `expires ${relative(e.eligibleAt, now)}`
            : `retry ${relative(e.eligibleAt, now)}`,
        );
      },
    );
    noPending.hidden = entries.length > 0;
    pending.wrap.hidden = entries.length === 0;
    const shownGroups = Math.min(total, maxDetailedGroups);
    pendingNote.textContent =
      total > maxDetailedGroups
        ? `Consumers and pending messages of the first ${shownGroups} of ${total} groups, up to ${pendingPerGroup} each.`
        : `Up to ${pendingPerGroup} pending messages per group, oldest first.`;
  };

  let notFound = false;
  const view: View = {
    title: `Queue ${queue}`,
    element,
    async refresh() {
      let answer: QueueStats;
      try {
        answer = await context.api.get<QueueStats>(base);
      } catch (error) {
        if (error instanceof ApiFailure && error.code === 'QUEUE_NOT_FOUND') {
          if (!notFound) {
            notFound = true;
            missing.hidden = false;
            replaceChildren(
              missing,
              `Queue ${queue} does not exist. `,
              h('a', { href: '#/' }, 'Back to all queues'),
            );
          }
          return;
        }
        throw error;
      }
      notFound = false;
      missing.hidden = true;
      showStats(answer);
      const detailed = answer.groups.slice(0, maxDetailedGroups);
      const details = await Promise.all(
        detailed.map(async (group): Promise<GroupDetail | undefined> => {
          const path = `${base}/groups/${segment(group.name)}/pending`;
          try {
            const [summary, listed] = await Promise.all([
              context.api.get<PendingSummary>(path),
              context.api.get<Pending>(`${path}?count=${pendingPerGroup}`),
            ]);
            return { group: group.name, summary, entries: listed.entries };
          } catch (error) {
            // Deleted since the stats were read: it is gone from the next refresh on.
            if (error instanceof ApiFailure && error.code === 'GROUP_NOT_FOUND') return undefined;
            throw error;
          }
        }),
      );
      showDetails(
        details.filter((detail) => detail !== undefined),
        answer.groups.length,
      );
      await schedules?.refresh();
    },
  };
  return view;
}
