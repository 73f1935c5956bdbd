/**
 * The dashboard page: signs in with a token, then shows one view at a time by the URL's hash
 * (#/ all queues, #/queue/<name>, #/queue/<name>/dlq, #/schedules) and refreshes it live while
 * the tab is visible. Bundled by scripts/generate-dashboard.ts into lib/dashboard/assets.generated.ts.
 */
import { ApiFailure, describeFailure } from './api.ts';
import { confirmAction } from './confirm.ts';
import type { View, ViewContext } from './context.ts';
import { field, h, replaceChildren } from './dom.ts';
import { type Features, loadFeatures, perQueue } from './features.ts';
import { timestamp } from './format.ts';
import { forgetToken, openSession, type Session, storedToken } from './session.ts';
import type { Queues } from './types.ts';
import { dlqView } from './views/dlq.ts';
import { overviewView } from './views/overview.ts';
import { queueView } from './views/queue.ts';
import { schedulesPanel } from './views/schedules.ts';
import { signInView } from './views/sign-in.ts';

const appName = 'edge-stream-queue';
const base = new URL('./', location.href);
const root = document.getElementById('app') ?? document.body;

const nav = h('nav', { class: 'nav', 'aria-label': 'Main' });
const sessionBox = h('div', { class: 'session' });
const alertBox = h('div', { class: 'alert', role: 'alert', 'data-testid': 'alert' });
const statusBox = h('p', { class: 'status', role: 'status', 'data-testid': 'status' });
const liveState = h('p', { class: 'live-state', 'data-testid': 'live-state' });
const main = h('main', { id: 'main', tabindex: -1 });
replaceChildren(
  root,
  h(
    'header',
    { class: 'top' },
    h('h1', { class: 'brand' }, h('a', { href: '#/' }, appName), ' dashboard'),
    nav,
    sessionBox,
  ),
  h('div', { class: 'messages' }, alertBox, statusBox),
  main,
  h(
    'footer',
    { class: 'foot' },
    h('a', { href: 'docs' }, 'API reference'),
    ' · ',
    h('a', { href: 'openapi.json' }, 'OpenAPI document'),
    ' · ',
    liveState,
  ),
);

const refreshChoices = [1000, 2000, 5000, 10_000];
let refreshMs = 2000;
let live = true;
let session: Session | undefined;
let features: Features = {};
let current: View | undefined;
/** Bumped on every navigation and sign-out, so a stale refresh loop stops. */
let generation = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

function showAlert(text: string): void {
  const dismiss = h(
    'button',
    { type: 'button', class: 'secondary small', 'aria-label': 'Dismiss the message' },
    'Dismiss',
  );
  dismiss.addEventListener('click', () => replaceChildren(alertBox));
  replaceChildren(alertBox, h('p', {}, text), dismiss);
}

function signOut(problem?: string): void {
  forgetToken();
  session = undefined;
  generation += 1;
  clearTimeout(timer);
  replaceChildren(sessionBox);
  replaceChildren(nav);
  replaceChildren(alertBox);
  liveState.textContent = '';
  showSignIn(problem);
}

function fail(error: unknown): void {
  if (error instanceof ApiFailure && error.status === 401) {
    signOut(`Signed out: ${describeFailure(error)}`);
    return;
  }
  showAlert(describeFailure(error));
}

function context(active: Session): ViewContext {
  return {
    api: active.api,
    access: active.access,
    features,
    notify: (message) => {
      replaceChildren(alertBox);
      statusBox.textContent = message;
    },
    fail,
    confirm: confirmAction,
  };
}

function notFoundView(): View {
  return {
    title: 'Not found',
    element: h(
      'section',
      { class: 'view', 'aria-labelledby': 'view-title' },
      h('h2', { id: 'view-title', tabindex: -1 }, 'No such page'),
      h('p', {}, h('a', { href: '#/' }, 'Back to all queues')),
    ),
    refresh: async () => undefined,
  };
}

function globalSchedulesView(ctx: ViewContext): View {
  const panel = schedulesPanel(ctx, undefined);
  return {
    title: 'Schedules',
    element: h(
      'section',
      { class: 'view', 'aria-labelledby': 'view-title' },
      h('h2', { id: 'view-title', tabindex: -1 }, 'Schedules'),
      panel.element,
    ),
    refresh: panel.refresh,
  };
}

/** The view for the current hash. */
function viewFor(active: Session, initial?: Queues): View {
  const ctx = context(active);
  const hash = location.hash.replace(/^#/, '');
  const queueMatch = /^\/queue\/([^/]+)(\/dlq)?$/.exec(hash);
  if (hash === '' || hash === '/') return overviewView(ctx, initial);
  if (queueMatch !== null) {
    const name = decodeURIComponent(queueMatch[1] ?? '');
    return queueMatch[2] === undefined ? queueView(ctx, name) : dlqView(ctx, name);
  }
  if (hash === '/schedules' && features.listSchedules !== undefined && !perQueue(features.listSchedules)) {
    return globalSchedulesView(ctx);
  }
  return notFoundView();
}

async function refreshCurrent(mine: number): Promise<void> {
  if (current === undefined || mine !== generation) return;
  try {
    await current.refresh();
    if (mine !== generation) return;
    liveState.classList.remove('failing');
    liveState.textContent = `${live ? 'Live' : 'Paused'}; updated ${timestamp(Date.now())}`;
  } catch (error) {
    if (mine !== generation) return;
    if (error instanceof ApiFailure && error.status === 401) {
      fail(error);
      return;
    }
    liveState.classList.add('failing');
    liveState.textContent = `Refresh failed at ${timestamp(Date.now())}: ${describeFailure(error)}`;
  }
}

function schedule(mine: number): void {
  clearTimeout(timer);
  timer = setTimeout(() => {
    if (mine !== generation) return;
    if (!live || document.hidden) {
      schedule(mine);
      return;
    }
    void refreshCurrent(mine).then(() => {
      if (mine === generation) schedule(mine);
    });
  }, refreshMs);
}

function navigate(active: Session, initial?: Queues): void {
  generation += 1;
  const mine = generation;
  replaceChildren(alertBox);
  statusBox.textContent = '';
  current = viewFor(active, initial);
  replaceChildren(main, current.element);
  document.title = `${current.title} · ${appName} dashboard`;
  for (const link of nav.querySelectorAll('a')) {
    if (link.getAttribute('href') === (location.hash || '#/')) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  current.element.querySelector<HTMLElement>('h2')?.focus({ preventScroll: true });
  void refreshCurrent(mine).then(() => {
    if (mine === generation) schedule(mine);
  });
}

function showSession(active: Session): void {
  const liveBox = h('input', { type: 'checkbox', checked: live, 'data-action': 'live' });
  liveBox.addEventListener('change', () => {
    live = liveBox.checked;
    liveState.textContent = live ? 'Live' : 'Paused';
  });
  const every = h(
    'select',
    { 'data-action': 'refresh-interval' },
    ...refreshChoices.map((ms) =>
      h('option', { value: ms, selected: ms === refreshMs }, `every ${ms / 1000} s`),
    ),
  );
  every.addEventListener('change', () => {
    refreshMs = Number(every.value);
    schedule(generation);
  });
  const out = h('button', { type: 'button', class: 'secondary', 'data-action': 'sign-out' }, 'Sign out');
  out.addEventListener('click', () => signOut());
  replaceChildren(
    sessionBox,
    h(
      'span',
      { class: `badge access-${active.access}`, 'data-testid': 'access' },
      active.access === 'admin' ? 'Admin' : 'Read-only (consume scope)',
    ),
    h('label', { class: 'check' }, liveBox, ' Refresh live'),
    field('Refresh interval', every),
    out,
  );
  replaceChildren(
    nav,
    h('a', { href: '#/' }, 'Queues'),
    features.listSchedules !== undefined &&
      !perQueue(features.listSchedules) &&
      h('a', { href: '#/schedules' }, 'Schedules'),
  );
}

function start(active: Session, queues?: Queues): void {
  session = active;
  showSession(active);
  navigate(active, queues);
}

async function trySignIn(token: string): Promise<string | undefined> {
  try {
    const opened = await openSession(base, token);
    start(opened.session, opened.queues);
    return undefined;
  } catch (error) {
    return describeFailure(error);
  }
}

function showSignIn(problem?: string): void {
  current = undefined;
  document.title = `Sign in · ${appName} dashboard`;
  replaceChildren(main, signInView(problem, trySignIn));
  main.querySelector<HTMLInputElement>('#token')?.focus();
}

window.addEventListener('hashchange', () => {
  if (session !== undefined) navigate(session);
});
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && session !== undefined) void refreshCurrent(generation);
});

async function boot(): Promise<void> {
  features = await loadFeatures(base);
  const token = storedToken();
  if (token === undefined) {
    showSignIn();
    return;
  }
  const refusal = await trySignIn(token);
  if (refusal !== undefined) {
    forgetToken();
    showSignIn(refusal);
  }
}

void boot();
