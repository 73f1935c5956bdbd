/** A form that produces one test message: JSON body, optional attributes, delay and dedup id. */
import { CALL_RULES, NAME_RULE } from '../../../queue/rules.ts';
import { segment } from '../api.ts';
import type { ViewContext } from '../context.ts';
import { field, h } from '../dom.ts';
import type { Produced } from '../types.ts';

/** Parses the form's JSON text, or says what is wrong with it. */
function parseJson(text: string, what: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return {
      problem: `${what} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/**
 * The form; with `queue` it produces there, without it the form asks for the queue's name.
 * `produced` runs after a produce succeeded (the view refreshes).
 */
export function produceForm(
  context: ViewContext,
  queue: string | undefined,
  produced: () => void,
): HTMLElement {
  const queueInput = h('input', {
    name: 'queue',
    required: true,
    maxlength: NAME_RULE.maxLength,
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const body = h('textarea', { name: 'body', rows: 4, required: true, spellcheck: 'false' });
  body.value = '{"hello":"world"}';
  const attributes = h('textarea', {
    name: 'attributes',
    rows: 2,
    spellcheck: 'false',
    placeholder: '{"tenant":"acme"}',
  });
  const delay = h('input', {
    name: 'delayMs',
    type: 'number',
    min: CALL_RULES.delayMs.min,
    max: CALL_RULES.delayMs.max,
    step: 1,
    inputmode: 'numeric',
  });
  const dedup = h('input', { name: 'dedupId', maxlength: 256, autocomplete: 'off', spellcheck: 'false' });
  const groupKey = h('input', { name: 'groupKey', maxlength: 128, autocomplete: 'off', spellcheck: 'false' });
  const problem = h('p', { class: 'form-problem', role: 'alert' });
  const submit = h('button', { type: 'submit', 'data-action': 'produce' }, 'Produce message');

  const send = async () => {
    problem.textContent = '';
    const name = queue ?? queueInput.value.trim();
    if (!NAME_RULE.pattern.test(name)) {
      problem.textContent = `The queue name must be ${NAME_RULE.text}.`;
      queueInput.focus();
      return;
    }
    const parsedBody = parseJson(body.value, 'The body');
    if ('problem' in parsedBody) {
      problem.textContent = parsedBody.problem;
      body.focus();
      return;
    }
    const message: Record<string, unknown> = { body: parsedBody.value };
    if (attributes.value.trim() !== '') {
      const parsed = parseJson(attributes.value, 'The attributes');
      if ('problem' in parsed) {
        problem.textContent = parsed.problem;
        attributes.focus();
        return;
      }
      message.attributes = parsed.value;
    }
    if (delay.value !== '') message.delayMs = Number(delay.value);
    if (dedup.value !== '') message.dedupId = dedup.value;
    if (groupKey.value !== '') message.groupKey = groupKey.value;
    submit.disabled = true;
    try {
      const { ids } = await context.api.send<Produced>('POST', `/v1/queues/${segment(name)}/messages`, {
        messages: [message],
      });
      context.notify(`Produced a message to ${name}: ${ids.join(', ')}`);
      produced();
    } catch (error) {
      context.fail(error);
    } finally {
      submit.disabled = false;
    }
  };

  return h(
    'form',
    {
      class: 'produce',
      'aria-label': queue === undefined ? 'Produce a test message' : `Produce a test message to ${queue}`,
      onsubmit: (event: Event) => {
        event.preventDefault();
        void send();
      },
    },
    queue === undefined && field('Queue', queueInput, NAME_RULE.text),
    field('Body (JSON)', body),
    field('Attributes (JSON object of strings, optional)', attributes),
    h(
      'div',
      { class: 'field-row' },
      field('Delay in ms (optional)', delay),
      field('Dedup id (optional)', dedup),
      context.features.groupKeys === true && field('Group key (optional: in order with its key)', groupKey),
    ),
    problem,
    h('div', { class: 'actions' }, submit),
  );
}
