/**
 * `/` shortcuts in the reply box: typing `/` (at the start or after a space) opens a list of the
 * canned replies whose shortcut or text matches what follows; ↑/↓ choose, Enter or Tab insert
 * (the `/word` is replaced by the reply's text), Escape closes, a click inserts. The reply box
 * stays a textarea with the list as its popup (combobox pattern, aria-activedescendant).
 */
import { useId, useMemo, useState, type KeyboardEvent, type RefObject } from 'react';
import type { CannedReplyView } from '@parley/protocol';
import { useConsole, useTenantId } from '../../context.js';
import { useResource } from '../../hooks.js';

const MAX_SHOWN = 8;

/** The `/word` that ends at the caret, if any: where it starts and what follows the `/`. */
function slashToken(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const match = /(^|\s)\/([^\s/]*)$/.exec(before);
  if (!match) return undefined;
  return { start: caret - match[2]!.length - 1, query: match[2]!.toLowerCase() };
}

/** Shortcuts starting with the query first, then those containing it in the shortcut or the text. */
function matching(replies: CannedReplyView[], query: string): CannedReplyView[] {
  const starts = replies.filter((r) => r.shortcut.toLowerCase().startsWith(query));
  const contains = replies.filter((r) => !starts.includes(r) && (r.shortcut.toLowerCase().includes(query) || r.text.toLowerCase().includes(query)));
  return [...starts, ...contains].slice(0, MAX_SHOWN);
}

export function useCannedMenu(textarea: RefObject<HTMLTextAreaElement | null>, text: string, setText: (text: string) => void) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const id = useId();
  const replies = useResource((signal) => api.listCannedReplies(tenantId, signal), [api, tenantId]);
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | undefined>(undefined);
  const token = slashToken(text, caret);
  const options = useMemo(() => (token && replies.data ? matching(replies.data, token.query) : []), [token?.query, token?.start, replies.data]);
  const open = token !== undefined && dismissedAt !== token.start && options.length > 0;
  const current = Math.min(active, Math.max(0, options.length - 1));

  const insert = (reply: CannedReplyView) => {
    if (!token) return;
    const next = text.slice(0, token.start) + reply.text + text.slice(caret);
    const at = token.start + reply.text.length;
    setText(next);
    setCaret(at);
    setActive(0);
    // After React has put the new text in, the caret goes right after the inserted reply.
    window.requestAnimationFrame(() => {
      textarea.current?.focus();
      textarea.current?.setSelectionRange(at, at);
    });
  };

  /** Handles the keys of an open list; true when the key was used. */
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current + step + options.length) % options.length);
    } else if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
      insert(options[current]!);
    } else if (event.key === 'Escape') {
      setDismissedAt(token.start);
    } else {
      return false;
    }
    event.preventDefault();
    return true;
  };

  const listId = `${id}-canned`;
  const optionId = (i: number) => `${id}-canned-${i}`;
  return {
    onKeyDown,
    /** Keeps the caret position known (clicks, arrow keys outside the list). */
    track: (element: HTMLTextAreaElement) => setCaret(element.selectionStart),
    /** After each edit: the caret, and the first option chosen again. */
    edited: (element: HTMLTextAreaElement) => {
      setCaret(element.selectionStart);
      setActive(0);
    },
    comboProps: {
      role: 'combobox',
      'aria-autocomplete': 'list' as const,
      'aria-expanded': open,
      'aria-controls': listId,
      'aria-activedescendant': open ? optionId(current) : undefined,
    },
    menu: open ? (
      <ul className="canned-menu" id={listId} role="listbox" aria-label="Canned replies">
        {options.map((r, i) => (
          <li
            key={r.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === current}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => insert(r)}
          >
            <code>/{r.shortcut}</code> <span className="canned-menu-text">{r.text}</span>
          </li>
        ))}
      </ul>
    ) : (
      <ul id={listId} role="listbox" aria-label="Canned replies" hidden />
    ),
    hint: replies.data && replies.data.length > 0 ? 'Type / for canned replies.' : '',
  };
}
