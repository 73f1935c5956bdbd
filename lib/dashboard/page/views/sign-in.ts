/**
 * Asks for a token. It is checked against the service before it is kept (in this tab's
 * sessionStorage only), and a refusal says why in words: a wrong token, or one that may only
 * produce.
 */
import { h } from '../dom.ts';

export function signInView(
  problem: string | undefined,
  submit: (token: string) => Promise<string | undefined>,
): HTMLElement {
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'token-hint',
  });
  const message = h(
    'p',
    { class: 'sign-in-problem', role: 'alert', 'data-testid': 'sign-in-problem' },
    problem ?? '',
  );
  const button = h('button', { type: 'submit', 'data-action': 'sign-in' }, 'Sign in');
  const form = h(
    'form',
    {
      'aria-labelledby': 'view-title',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const token = input.value.trim();
        if (token === '') {
          message.textContent = 'Enter a token first.';
          input.focus();
          return;
        }
        button.disabled = true;
        message.textContent = '';
        void submit(token)
          .then((refusal) => {
            if (refusal !== undefined) {
              message.textContent = refusal;
              input.select();
              input.focus();
            }
          })
          .finally(() => {
            button.disabled = false;
          });
      },
    },
    h('div', { class: 'field' }, h('label', { for: 'token' }, 'API token'), input),
    h(
      'p',
      { id: 'token-hint', class: 'muted' },
      'One of the service’s API_TOKENS (npm start prints a development token). It stays in this browser tab only (sessionStorage) and goes to this service only, as Authorization: Bearer. A consume-scope token gives a read-only view.',
    ),
    h('div', { class: 'actions' }, button),
  );
  return h(
    'section',
    { class: 'view sign-in', 'aria-labelledby': 'view-title' },
    h('h2', { id: 'view-title', tabindex: -1 }, 'Sign in'),
    form,
    message,
  );
}
