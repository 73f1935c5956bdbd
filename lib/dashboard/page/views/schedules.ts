/**
 * Schedules, where the service documents them (see features.ts): listed as the service answers
 * them (the table's columns are the items' own fields), deleted with a confirmation, and created
 * from a JSON body, all through the documented operations.
 */
import type { ViewContext } from '../context.ts';
import { canChange } from '../context.ts';
import { field, h, labelCells, replaceChildren, table } from '../dom.ts';
import { fill, type Operation, writeMethod } from '../features.ts';
import { preview } from '../format.ts';

type Item = Record<string, unknown>;

/** The list inside an answer: the answer itself, or its first array-valued field. */
function itemsOf(answer: unknown): Item[] {
  const list = Array.isArray(answer)
    ? answer
    : typeof answer === 'object' && answer !== null
      ? Object.values(answer).find(Array.isArray)
      : undefined;
  return (list ?? []).map((item: unknown) =>
    typeof item === 'object' && item !== null ? (item as Item) : { value: item },
  );
}

function idOf(item: Item, index: number): string {
  for (const key of ['id', 'name', 'scheduleId']) {
    const value = item[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return String(index);
}

function paramCount(operation: Operation): number {
  return operation.path.match(/\{[^}/]+\}/g)?.length ?? 0;
}

/** The schedules of `queue` (or every schedule, when the service keeps them globally). */
export function schedulesPanel(
  context: ViewContext,
  queue: string | undefined,
): { element: HTMLElement; refresh(): Promise<void> } {
  const list = context.features.listSchedules;
  const remove = context.features.deleteSchedule;
  const create = context.features.createSchedule;
  const scope = queue === undefined ? [] : [queue];
  const output = h('div', { 'data-testid': 'schedules' });

  const refresh = async () => {
    if (list === undefined) return;
    const items = itemsOf(await context.api.get<unknown>(fill(list, scope)));
    if (items.length === 0) {
      replaceChildren(output, h('p', { class: 'muted' }, 'No schedules.'));
      return;
    }
    const columns = [...new Set(items.flatMap((item) => Object.keys(item)))].slice(0, 6);
    const withDelete = remove !== undefined && canChange(context);
    const shown = table('Schedules', [...columns, ...(withDelete ? [''] : [])]);
    items.forEach((item, index) => {
      const id = idOf(item, index);
      const value = (v: unknown) => (typeof v === 'string' ? v : preview(v, 60));
      const tr = h('tr', { 'data-schedule': id }, ...columns.map((c) => h('td', {}, value(item[c]))));
      if (withDelete) {
        const button = h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'data-action': 'delete-schedule',
            'aria-label': `Delete schedule ${id}`,
          },
          'Delete…',
        );
        button.addEventListener('click', () => {
          void (async () => {
            const ok = await context.confirm({
              title: 'Delete this schedule?',
              message: `Schedule ${id} stops producing messages.`,
              confirmLabel: 'Delete schedule',
            });
            if (!ok) return;
            try {
              await context.api.send('DELETE', fill(remove, [...scope, id]));
              context.notify(`Deleted schedule ${id}`);
              await refresh();
            } catch (error) {
              context.fail(error);
            }
          })();
        });
        tr.append(h('td', {}, button));
      }
      shown.body.append(tr);
    });
    labelCells(shown.body);
    replaceChildren(output, shown.wrap);
  };

  let form: HTMLElement | false = false;
  if (create !== undefined && canChange(context)) {
    const needsId = paramCount(create) > scope.length;
    const idInput = h('input', { name: 'scheduleId', required: true, autocomplete: 'off' });
    const bodyInput = h('textarea', { name: 'schedule', rows: 4, required: true, spellcheck: 'false' });
    bodyInput.value = '{}';
    const problem = h('p', { class: 'form-problem', role: 'alert' });
    form = h(
      'form',
      {
        'aria-label': 'Create a schedule',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void (async () => {
            problem.textContent = '';
            let body: unknown;
            try {
              body = JSON.parse(bodyInput.value);
            } catch {
              problem.textContent = 'The schedule is not valid JSON.';
              return;
            }
            try {
              await context.api.send(
                writeMethod(create),
                fill(create, needsId ? [...scope, idInput.value.trim()] : scope),
                body,
              );
              context.notify('Schedule saved');
              await refresh();
            } catch (error) {
              context.fail(error);
            }
          })();
        },
      },
      needsId && field('Schedule id', idInput),
      field('Schedule (JSON, as the service documents it at /docs)', bodyInput),
      problem,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', 'data-action': 'create-schedule' }, 'Save schedule'),
      ),
    );
  }

  return { element: h('div', {}, output, form), refresh };
}
