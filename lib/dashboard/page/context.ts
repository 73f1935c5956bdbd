/** What every view is given, and what a view gives back to the page. */
import type { Api } from './api.ts';
import type { ConfirmOptions } from './confirm.ts';
import type { Features } from './features.ts';
import type { Access } from './session.ts';

export interface ViewContext {
  readonly api: Api;
  readonly access: Access;
  readonly features: Features;
  /** Says a finished action's result in the status line (polite live region). */
  notify(message: string): void;
  /** Shows a failure in the alert region; a 401 signs out. */
  fail(error: unknown): void;
  confirm(options: ConfirmOptions): Promise<boolean>;
}

export interface View {
  /** The page title and the view's heading. */
  readonly title: string;
  readonly element: HTMLElement;
  /** Fetches and shows the latest data; called at once and on every live tick. */
  refresh(): Promise<void>;
}

/** True for the admin token: every control; the read-only view shows none that change state. */
export function canChange(context: ViewContext): boolean {
  return context.access === 'admin';
}
