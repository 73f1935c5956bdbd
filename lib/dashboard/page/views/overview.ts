/**
 * All queues: per queue its length, delayed and DLQ counts, and per group pending, lag,
 * consumers and the oldest pending message's age, refreshed live. Admin also gets the sweep and
 * a form to produce a test message to any queue (which creates it).
 */
import { recordSample } from '../chart.ts';
import { canChange, type View, type ViewContext } from '../context.ts';
import { cell, h, row, setText, syncRows, table } from '../dom.ts';
import { count, duration } from '../format.ts';
import type { GroupStats, QueueStats, Queues, SweepReport } from '../types.ts';
import { produceForm } from './produce-form.ts';

function stat(name: string, label: string): HTMLElement {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', { 'data-stat': name }, '—'));
}

function setStat(card: HTMLElement, name: string, value: string): void {
  const dd = card.querySelector(`[data-stat="${name}"]`);
  if (dd !== null) setText(dd, value);
}

function groupRow(group: GroupStats): HTMLElement {
  const tr = row({ group: group.name, pending: '', lag: '', consumers: '', oldest: '' });
  tr.dataset.group = group.name;
  return tr;
}

function updateGroupRow(tr: HTMLElement, group: GroupStats): void {
  setText(cell(tr, 'pending'), count(group.pending));
  setText(cell(tr, 'lag'), count(group.lag));
  setText(cell(tr, 'consumers'), count(group.consumers));
  setText(cell(tr, 'oldest'), duration(group.oldestPendingAgeMs));
}

function queueCard(stats: QueueStats): HTMLElement {
  const groups = table(`Groups of ${stats.name}`, ['Group', 'Pending', 'Lag', 'Consumers', 'Oldest pending']);
  groups.wrap.classList.add('groups');
  const card = h(
    'article',
    { class: 'card', 'data-queue': stats.name, 'aria-labelledby': `queue-${stats.name}` },
    h(
      'h3',
      { id: `queue-${stats.name}` },
      h('a', { href: `#/queue/${encodeURIComponent(stats.name)}` }, stats.name),
    ),
    h(
      'dl',
      { class: 'stats' },
      stat('length', 'Length'),
      stat('delayed', 'Delayed'),
      stat('deadLetters', 'Dead letters'),
    ),
    h('p', { class: 'muted no-groups' }, 'No consumer groups yet.'),
    groups.wrap,
  );
  return card;
}

function updateCard(card: HTMLElement, stats: QueueStats): void {
  setStat(card, 'length', count(stats.length));
  setStat(card, 'delayed', count(stats.delayed));
  setStat(card, 'deadLetters', count(stats.deadLetters));
  card.classList.toggle('has-dead-letters', stats.deadLetters > 0);
  const body = card.querySelector('tbody');
  if (body !== null) syncRows(body, stats.groups, (g) => g.name, groupRow, updateGroupRow);
  const none = card.querySelector<HTMLElement>('.no-groups');
  if (none !== null) none.hidden = stats.groups.length > 0;
  const wrap = card.querySelector<HTMLElement>('.groups');
  if (wrap !== null) wrap.hidden = stats.groups.length === 0;
}

export function overviewView(context: ViewContext, initial?: Queues): View {
  const cards = h('div', { class: 'cards', 'data-testid': 'queue-cards' });
  const empty = h(
    'p',
    { class: 'empty', hidden: true },
    'No queues yet.',
    canChange(context) ? ' Produce a message below to create one.' : '',
  );
  const sweep = h('button', { type: 'button', 'data-action': 'sweep' }, 'Run the sweep now');
  sweep.addEventListener('click', () => {
    sweep.disabled = true;
    context.api
      .send<SweepReport>('POST', '/v1/sweep', {})
      .then((report) => {
        context.notify(
          `Sweep done: ${report.deadLettered} dead-lettered, ${report.promoted} delayed promoted, ${report.consumersRemoved} idle consumers removed, ${report.trimmed} entries trimmed${report.complete ? '' : ' (stopped at its budget)'}.`,
        );
        return view.refresh();
      })
      .catch(context.fail)
      .finally(() => {
        sweep.disabled = false;
      });
  });

  const show = (queues: Queues) => {
    const now = Date.now();
    for (const stats of queues.queues) recordSample(stats, now);
    const sorted = [...queues.queues].sort((a, b) => a.name.localeCompare(b.name));
    syncRows(cards, sorted, (q) => q.name, queueCard, updateCard);
    empty.hidden = sorted.length > 0;
  };

  const element = h(
    'section',
    { class: 'view overview', 'aria-labelledby': 'view-title' },
    h(
      'div',
      { class: 'view-head' },
      h('h2', { id: 'view-title', tabindex: -1 }, 'Queues'),
      canChange(context) && h('div', { class: 'toolbar' }, sweep),
    ),
    empty,
    cards,
    canChange(context) &&
      h(
        'section',
        { class: 'panel', 'aria-labelledby': 'produce-title' },
        h('h3', { id: 'produce-title' }, 'Produce a test message'),
        produceForm(context, undefined, () => {
          view.refresh().catch(context.fail);
        }),
      ),
  );

  const view: View = {
    title: 'Queues',
    element,
    async refresh() {
      show(await context.api.get<Queues>('/v1/queues'));
    },
  };
  if (initial !== undefined) show(initial);
  return view;
}
