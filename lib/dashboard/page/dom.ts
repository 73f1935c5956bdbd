/**
 * The page's only way to build DOM: elements from a tag, attributes and children, text always as
 * text nodes (a message body or a queue name never becomes markup), and keyed row updates that
 * keep the rows (and a focused button in one) in place across live refreshes.
 */

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

/**
 * An element with attributes and children. `on<event>` attributes become listeners; `true` sets
 * a boolean attribute, `false`, null and undefined leave it out.
 * @example h('button', { type: 'button', onclick: () => save() }, 'Save')
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, ...children);
  return element;
}

const svgNamespace = 'http://www.w3.org/2000/svg';

/** An SVG element (the chart), attributes as for `h`. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(svgNamespace, tag);
  setAttributes(element, attributes);
  append(element, ...children);
  return element;
}

function setAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (value === true) {
      element.setAttribute(name, '');
    } else if (value !== false && value !== null && value !== undefined) {
      element.setAttribute(name, String(value));
    }
  }
}

/** Appends children, strings and numbers as text nodes; empty children are skipped. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** Sets an element's text only when it changed (a live refresh should not churn the DOM). */
export function setText(element: Element, text: string | number): void {
  const value = String(text);
  if (element.textContent !== value) element.textContent = value;
}

/**
 * Brings the rows of `body` in line with `items`, keyed by `key`: existing rows are updated in
 * place (so focus inside them survives a refresh), new ones created, missing ones removed, and
 * the order made to match.
 */
export function syncRows<T>(
  body: HTMLElement,
  items: readonly T[],
  key: (item: T) => string,
  create: (item: T) => HTMLElement,
  update: (row: HTMLElement, item: T) => void,
): void {
  const existing = new Map<string, HTMLElement>();
  for (const row of Array.from(body.children)) {
    if (row instanceof HTMLElement && row.dataset.key !== undefined) existing.set(row.dataset.key, row);
  }
  let cursor: Element | null = body.firstElementChild;
  for (const item of items) {
    const id = key(item);
    let row = existing.get(id);
    if (row === undefined) {
      row = create(item);
      row.dataset.key = id;
    } else {
      existing.delete(id);
    }
    update(row, item);
    if (row !== cursor) body.insertBefore(row, cursor);
    else cursor = cursor.nextElementSibling;
  }
  for (const stale of existing.values()) stale.remove();
  if (body instanceof HTMLTableSectionElement) labelCells(body);
}

/**
 * Gives each cell of `body` its column's header as `data-label`, which the narrow layout shows
 * beside the value when rows are stacked as cards.
 */
export function labelCells(body: HTMLTableSectionElement): void {
  const headers = Array.from(
    body.parentElement?.querySelectorAll('thead th') ?? [],
    (th) => th.textContent ?? '',
  );
  for (const tr of Array.from(body.rows)) {
    Array.from(tr.cells).forEach((td, index) => {
      if (td.dataset.label === undefined) td.dataset.label = headers[index] ?? '';
    });
  }
}

let nextId = 0;

/** A document-unique id for label/aria wiring. */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** A labelled form control: `<label for>` wired to the control, with an optional hint. */
export function field(
  label: string,
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  control.id ||= uniqueId('field');
  const hintElement = hint === undefined ? undefined : h('small', { id: `${control.id}-hint` }, hint);
  if (hintElement !== undefined) control.setAttribute('aria-describedby', hintElement.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintElement);
}

/** A table whose header cells are `columns`; returns the table and its body for `syncRows`. */
export function table(
  caption: string,
  columns: readonly string[],
  attributes: Attributes = {},
): { wrap: HTMLElement; body: HTMLTableSectionElement } {
  const body = h('tbody');
  const element = h(
    'table',
    attributes,
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...columns.map((column) => h('th', { scope: 'col' }, column)))),
    body,
  );
  // A scrolling box must be reachable by keyboard to be scrolled by it.
  const wrap = h('div', { class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: 0 }, element);
  return { wrap, body };
}

/** A row of cells, each a child or text, with `data-col` names for tests and styling. */
export function row(cells: Record<string, Child>): HTMLTableRowElement {
  return h(
    'tr',
    {},
    ...Object.entries(cells).map(([name, content]) => h('td', { 'data-col': name }, content)),
  );
}

/** The cell named `name` in a row made by `row`. */
export function cell(tr: HTMLElement, name: string): HTMLElement {
  const found = tr.querySelector<HTMLElement>(`td[data-col="${name}"]`);
  if (found === null) throw new Error(`no cell ${name}`);
  return found;
}
