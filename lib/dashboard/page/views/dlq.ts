/**
 * A queue's dead letters (admin): body, reason and `deadLetteredFrom` of each, redrive one, and
 * redrive all or purge all after a confirmation. The list refreshes live like every view; rows
 * are kept in place, so a focused Redrive button stays focused.
 */
import { CALL_RULES } from '../../../queue/rules.ts';
import { segment } from '../api.ts';
import { canChange, type View, type ViewContext } from '../context.ts';
import { cell, h, row, setText, syncRows, table } from '../dom.ts';
import { count, json, plural, preview, timestamp } from '../format.ts';
import type { DeadLetter, DeadLetters, QueueStats, Redriven } from '../types.ts';

const pageSize = 100;

export function dlqView(context: ViewContext, queue: string): View {
  const base = `/v1/queues/${segment(queue)}`;
  const admin = canChange(context);
  let shown = pageSize;
  let total = 0;

  const summary = h('p', { class: 'dlq-summary', 'data-testid': 'dlq-summary' }, '—');
  const letters = table(`Dead letters of ${queue}`, [
    'Dead letter id',
    'Dead-lettered from',
    'Group',
    'Deliveries',
    'Reason',
    'Dead-lettered at',
    'Body',
    ...(admin ? [''] : []),
  ]);
  const empty = h('p', { class: 'empty' }, 'No dead letters.');
  const more = h(
    'button',
    { type: 'button', class: 'secondary', hidden: true, 'data-action': 'show-more' },
    'Show more',
  );
  more.addEventListener('click', () => {
    shown = Math.min(shown + pageSize, CALL_RULES.count.max);
    view.refresh().catch(context.fail);
  });

  const act = async (action: () => Promise<string>) => {
    try {
      context.notify(await action());
      await view.refresh();
    } catch (error) {
      context.fail(error);
    }
  };

  const letterRow = (letter: DeadLetter) => {
    const cells: Record<string, Node | string> = {
      id: letter.id,
      from: letter.deadLetteredFrom,
      group: letter.group,
      deliveries: count(letter.deliveries),
      reason: letter.reason,
      at: timestamp(letter.deadLetteredAt),
      body: h(
        'details',
        {},
        h('summary', {}, preview(letter.body, 60)),
        h('pre', { class: 'body' }, json(letter.body)),
        Object.keys(letter.attributes).length > 0 &&
          h('p', { class: 'muted' }, `Attributes: ${json(letter.attributes)}`),
      ),
    };
    if (admin) {
      const redrive = h(
        'button',
        {
          type: 'button',
          class: 'small',
          'data-action': 'redrive',
          'aria-label': `Redrive dead letter ${letter.id} (from ${letter.deadLetteredFrom})`,
        },
        'Redrive',
      );
      redrive.addEventListener('click', () => {
        redrive.disabled = true;
        void act(async () => {
          const { redriven } = await context.api.send<Redriven>('POST', `${base}/dlq/redrive`, {
            ids: [letter.id],
          });
          return redriven === 1
            ? `Redrove ${letter.deadLetteredFrom}: it is back in ${queue} as a new message`
            : `Nothing redriven: ${letter.id} was no longer in the dead letters`;
        }).finally(() => {
          redrive.disabled = false;
        });
      });
      cells.actions = redrive;
    }
    const tr = row(cells);
    tr.dataset.deadLetter = letter.id;
    tr.dataset.from = letter.deadLetteredFrom;
    return tr;
  };

  const redriveAll = h('button', { type: 'button', 'data-action': 'redrive-all' }, 'Redrive all…');
  redriveAll.addEventListener('click', () => {
    void (async () => {
      const ok = await context.confirm({
        title: `Redrive all dead letters of ${queue}?`,
        message: `${plural(total, 'dead letter')} go back into ${queue} as new messages, to be delivered again to every group.`,
        confirmLabel: `Redrive all ${count(total)}`,
      });
      if (!ok) return;
      await act(async () => {
        const { redriven } = await context.api.send<Redriven>('POST', `${base}/dlq/redrive`, { all: true });
        return `Redrove ${plural(redriven, 'dead letter')} back into ${queue}`;
      });
    })();
  });
  const purge = h('button', { type: 'button', class: 'danger', 'data-action': 'purge' }, 'Purge all…');
  purge.addEventListener('click', () => {
    void (async () => {
      const ok = await context.confirm({
        title: `Purge the dead letters of ${queue}?`,
        message: `${plural(total, 'dead letter')} are deleted for good. This cannot be undone.`,
        confirmLabel: `Purge ${count(total)}`,
      });
      if (!ok) return;
      await act(async () => {
        const { purged } = await context.api.send<{ purged: number }>('DELETE', `${base}/dlq`);
        return `Purged ${plural(purged, 'dead letter')} of ${queue}`;
      });
    })();
  });

  const element = h(
    'section',
    { class: 'view dlq', 'aria-labelledby': 'view-title' },
    h(
      'nav',
      { class: 'crumbs', 'aria-label': 'Breadcrumb' },
      h('a', { href: '#/' }, 'Queues'),
      ' / ',
      h('a', { href: `#/queue/${encodeURIComponent(queue)}` }, queue),
      ' / Dead letters',
    ),
    h(
      'div',
      { class: 'view-head' },
      h('h2', { id: 'view-title', tabindex: -1 }, `Dead letters of ${queue}`),
      admin && h('div', { class: 'toolbar' }, redriveAll, purge),
    ),
    summary,
    admin
      ? h('div', {}, empty, letters.wrap, more)
      : h(
          'p',
          { class: 'empty' },
          'Listing dead letters needs an admin token; this token gives a read-only view.',
        ),
  );

  const view: View = {
    title: `Dead letters of ${queue}`,
    element,
    async refresh() {
      const stats = await context.api.get<QueueStats>(base);
      total = stats.deadLetters;
      redriveAll.disabled = total === 0;
      purge.disabled = total === 0;
      if (!admin) {
        setText(summary, `${plural(total, 'dead letter')}.`);
        return;
      }
      const page = await context.api.get<DeadLetters>(`${base}/dlq?count=${shown}`);
      syncRows(
        letters.body,
        page.deadLetters,
        (l) => l.id,
        letterRow,
        (tr, l) => setText(cell(tr, 'deliveries'), count(l.deliveries)),
      );
      empty.hidden = page.deadLetters.length > 0;
      letters.wrap.hidden = page.deadLetters.length === 0;
      more.hidden = page.cursor === null || shown >= CALL_RULES.count.max;
      setText(
        summary,
        page.deadLetters.length < total
          ? `${plural(total, 'dead letter')}; showing the oldest ${count(page.deadLetters.length)}.`
          : `${plural(total, 'dead letter')}.`,
      );
    },
  };
  return view;
}
