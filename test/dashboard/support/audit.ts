/**
 * Accessibility checks written for these tests (no axe here): every control has an accessible
 * name, buttons are told apart by theirs, labels and ARIA references point at real elements,
 * tables have captions and header scopes, no positive tabindex, one h1, unique ids, a language;
 * and a keyboard walk: Tab from the top reaches every visible, enabled control.
 */
import type { Page } from 'playwright-core';

const focusableSelector =
  'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]:not([tabindex="-1"])';

/** Problems found on the page as it is now; empty when it passes. */
export function auditPage(page: Page): Promise<string[]> {
  return page.evaluate((selector) => {
    const problems: string[] = [];
    const visible = (el: Element) => {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
    };
    const describe = (el: Element) =>
      `<${el.tagName.toLowerCase()}${el.id ? ` id=${el.id}` : ''}${el.getAttribute('data-action') ? ` data-action=${el.getAttribute('data-action')}` : ''}> "${(el.textContent ?? '').trim().slice(0, 40)}"`;
    const textOf = (id: string) => document.getElementById(id)?.textContent?.trim() ?? '';
    const nameOf = (el: Element): string => {
      const labelledBy = el.getAttribute('aria-labelledby');
      if (labelledBy) return labelledBy.split(/\s+/).map(textOf).join(' ').trim();
      const label = el.getAttribute('aria-label');
      if (label?.trim()) return label.trim();
      if (
        el instanceof HTMLInputElement ||
        el instanceof HTMLSelectElement ||
        el instanceof HTMLTextAreaElement
      ) {
        const fromLabels = Array.from(el.labels ?? [])
          .map((l) => l.textContent?.trim() ?? '')
          .join(' ')
          .trim();
        if (fromLabels) return fromLabels;
      } else {
        const text = el.textContent?.trim() ?? '';
        if (text) return text;
      }
      return el.getAttribute('title')?.trim() ?? '';
    };

    if (!document.documentElement.lang) problems.push('the html element has no lang');
    const h1s = document.querySelectorAll('h1');
    if (h1s.length !== 1) problems.push(`${h1s.length} h1 elements`);
    const ids = new Map<string, number>();
    for (const el of document.querySelectorAll('[id]')) ids.set(el.id, (ids.get(el.id) ?? 0) + 1);
    for (const [id, n] of ids) if (n > 1) problems.push(`id ${id} is used ${n} times`);
    for (const el of document.querySelectorAll('[aria-labelledby], [aria-describedby]')) {
      for (const attribute of ['aria-labelledby', 'aria-describedby']) {
        for (const id of (el.getAttribute(attribute) ?? '').split(/\s+/).filter(Boolean)) {
          if (document.getElementById(id) === null)
            problems.push(`${describe(el)} ${attribute} ${id} is missing`);
        }
      }
    }
    for (const label of document.querySelectorAll('label[for]')) {
      if (document.getElementById(label.getAttribute('for') ?? '') === null) {
        problems.push(`label for=${label.getAttribute('for')} points at nothing`);
      }
    }
    for (const el of document.querySelectorAll('[tabindex]')) {
      if (Number(el.getAttribute('tabindex')) > 0) problems.push(`${describe(el)} has a positive tabindex`);
    }
    for (const t of document.querySelectorAll('table')) {
      if (!visible(t)) continue;
      if (!t.querySelector('caption')?.textContent?.trim() && !t.getAttribute('aria-label')) {
        problems.push('a table without a caption');
      }
      for (const th of t.querySelectorAll('thead th')) {
        if (th.getAttribute('scope') !== 'col') problems.push('a column header without scope=col');
      }
    }
    for (const s of document.querySelectorAll('svg')) {
      if (s.getAttribute('aria-hidden') !== 'true' && !nameOf(s))
        problems.push('an svg with neither a name nor aria-hidden');
    }
    const buttonNames = new Map<string, number>();
    for (const el of document.querySelectorAll(selector)) {
      if (!visible(el)) continue;
      const name = nameOf(el);
      if (!name) problems.push(`${describe(el)} has no accessible name`);
      if (el instanceof HTMLButtonElement) buttonNames.set(name, (buttonNames.get(name) ?? 0) + 1);
      if (
        (el instanceof HTMLInputElement ||
          el instanceof HTMLSelectElement ||
          el instanceof HTMLTextAreaElement) &&
        (el.labels?.length ?? 0) === 0 &&
        !el.getAttribute('aria-label') &&
        !el.getAttribute('aria-labelledby')
      ) {
        problems.push(`${describe(el)} has no label`);
      }
    }
    for (const [name, n] of buttonNames) if (n > 1) problems.push(`${n} buttons are all called "${name}"`);
    return problems;
  }, focusableSelector);
}

/**
 * Presses Tab from the top of the page until focus has been everywhere it goes (or twice the
 * number of controls); returns the visible, enabled controls that it never reached.
 */
export async function unreachableByTab(page: Page): Promise<string[]> {
  const total = await page.evaluate((selector) => {
    let n = 0;
    for (const el of document.querySelectorAll(selector)) {
      const box = el.getBoundingClientRect();
      const disabled = (el as HTMLButtonElement).disabled === true;
      const inClosedDetails = el.closest('details:not([open])') !== null && el.tagName !== 'SUMMARY';
      if (box.width > 0 && box.height > 0 && !disabled && !inClosedDetails) {
        el.setAttribute('data-tab-audit', String(n));
        n += 1;
      } else {
        el.removeAttribute('data-tab-audit');
      }
    }
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
    return n;
  }, focusableSelector);
  const reached = new Set<string>();
  await page.evaluate(() => {
    // Start before the first control.
    const start = document.createElement('span');
    start.tabIndex = -1;
    start.id = 'tab-audit-start';
    document.body.prepend(start);
    start.focus();
  });
  for (let i = 0; i < total * 2 + 5 && reached.size < total; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-tab-audit') ?? null);
    if (id !== null) reached.add(id);
  }
  return page.evaluate(
    (ids) => {
      document.getElementById('tab-audit-start')?.remove();
      const missed: string[] = [];
      for (const el of document.querySelectorAll('[data-tab-audit]')) {
        if (!ids.includes(el.getAttribute('data-tab-audit') ?? '')) {
          missed.push(
            `<${el.tagName.toLowerCase()}> "${(el.textContent ?? el.getAttribute('aria-label') ?? '').trim().slice(0, 40)}"`,
          );
        }
      }
      return missed;
    },
    [...reached],
  );
}

/** Whether the page scrolls sideways (it should not: wide tables scroll inside their own box). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}
