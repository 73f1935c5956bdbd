/**
 * A confirmation before anything that cannot be undone (redrive all, purge, deletes): a modal
 * <dialog>, so focus moves into it and Escape cancels; Cancel has the focus first.
 */
import { h } from './dom.ts';

export interface ConfirmOptions {
  title: string;
  message: string;
  /** The confirming button's text, saying what it does ("Redrive all 12"). */
  confirmLabel: string;
}

/** Resolves true when the person confirms, false on Cancel or Escape. */
export function confirmAction(options: ConfirmOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = 'confirm-title';
    const messageId = 'confirm-message';
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const accept = h(
      'button',
      { type: 'button', class: 'danger', 'data-action': 'confirm' },
      options.confirmLabel,
    );
    const dialog = h(
      'dialog',
      { 'aria-labelledby': titleId, 'aria-describedby': messageId, class: 'confirm' },
      h('h2', { id: titleId }, options.title),
      h('p', { id: messageId }, options.message),
      h('div', { class: 'actions' }, cancel, accept),
    );
    let answered = false;
    const finish = (value: boolean) => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    cancel.addEventListener('click', () => finish(false));
    accept.addEventListener('click', () => finish(true));
    dialog.addEventListener('close', () => finish(false));
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
