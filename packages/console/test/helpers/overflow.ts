/**
 * Text that does not fit its box, found in the page as it is rendered. Three kinds:
 * - a box whose content is wider than the box (`scrollWidth > clientWidth + 1`) and spills out;
 * - text that sticks out to the right of the element that holds it;
 * - a word broken over two lines between two letters or digits (a URL or an id wrapped
 *   mid-word; breaks after `/ . - _ ? & = # :` and spaces are sensible and allowed).
 * Intended exceptions: inside a scroll container (`.table-scroll`, or anything scrolling sideways
 * with `overflow-x: auto|scroll`) a wide box or text is fine, text cut short on purpose
 * (`text-overflow: ellipsis` with `overflow: hidden`) is fine, and form fields scroll their own
 * value. Words broken mid-word are checked everywhere, scroll containers included.
 */
import type { Page } from 'playwright-core';

export async function textOverflows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const describe = (el: Element): string => {
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
      return `<${el.tagName.toLowerCase()}${cls}> "${text}"`;
    };
    const hidden = (el: Element): boolean => {
      if (el.closest('.visually-hidden, [hidden], [aria-hidden="true"]')) return true;
      const rect = el.getBoundingClientRect();
      return rect.width === 0 && rect.height === 0;
    };
    const scrolls = (el: Element): boolean => {
      const x = getComputedStyle(el).overflowX;
      return x === 'auto' || x === 'scroll';
    };
    /** `el` or one of its ancestors scrolls sideways on purpose. */
    const inScroller = (el: Element): boolean => {
      for (let at: Element | null = el; at && at !== document.body; at = at.parentElement) {
        if (at.classList.contains('table-scroll') || scrolls(at)) return true;
      }
      return false;
    };
    const ellipsis = (el: Element): boolean => {
      const style = getComputedStyle(el);
      return style.textOverflow === 'ellipsis' && style.overflowX === 'hidden';
    };
    const FIELDS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'HTML', 'BODY']);

    // Boxes whose content spills out of them.
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (!(el instanceof HTMLElement) || FIELDS.has(el.tagName) || hidden(el)) continue;
      if (getComputedStyle(el).display === 'inline' || scrolls(el) || ellipsis(el) || inScroller(el)) continue;
      if (el.scrollWidth > el.clientWidth + 1) found.push(`${describe(el)} is ${el.scrollWidth - el.clientWidth}px wider than its box`);
    }

    // Text nodes: sticking out of their element, or broken mid-word.
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const holder = node.parentElement;
      const text = node.textContent ?? '';
      if (!holder || text.trim() === '' || FIELDS.has(holder.tagName) || holder.closest('svg, option, script, style') || hidden(holder)) continue;
      if (!inScroller(holder)) {
        range.selectNodeContents(node);
        const box = holder.getBoundingClientRect();
        const right = Math.max(...Array.from(range.getClientRects()).map((r) => r.right));
        let block: Element | null = holder;
        while (block && getComputedStyle(block).display === 'inline') block = block.parentElement;
        const limit = block ? Math.min(box.right, block.getBoundingClientRect().right) : box.right;
        if (!ellipsis(holder) && right > limit + 1) found.push(`${describe(holder)} sticks out ${Math.round(right - limit)}px`);
      }
      // Words on more than one line: where does the line change?
      for (const match of text.matchAll(/\S{2,}/g)) {
        const start = match.index ?? 0;
        range.setStart(node, start);
        range.setEnd(node, start + match[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        if (tops.size < 2) continue;
        let lastTop: number | undefined;
        for (let i = 0; i < match[0].length; i++) {
          range.setStart(node, start + i);
          range.setEnd(node, start + i + 1);
          const top = Math.round(range.getBoundingClientRect().top);
          if (lastTop !== undefined && top > lastTop + 2) {
            const before = match[0][i - 1] ?? '';
            const after = match[0][i] ?? '';
            if (/[\p{L}\p{N}]/u.test(before) && /[\p{L}\p{N}]/u.test(after)) {
              found.push(`${describe(holder)} breaks "${match[0].slice(0, 40)}" mid-word ("${before}|${after}")`);
              break;
            }
          }
          lastTop = top;
        }
      }
    }
    return [...new Set(found)];
  });
}

/** Tables that do not fit their box and scroll sideways in it (fine on a phone, not on a laptop). */
export async function scrollingTables(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('.table-scroll'))
      .filter((box) => box.scrollWidth > box.clientWidth + 1)
      .map((box) => {
        const table = box.querySelector('table');
        const name = table?.getAttribute('aria-label') ?? box.closest('section')?.querySelector('h2')?.textContent ?? '';
        return `table "${name}" is ${box.scrollWidth - box.clientWidth}px wider than its box`;
      }),
  );
}
