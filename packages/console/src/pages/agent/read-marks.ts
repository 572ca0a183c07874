/**
 * Unread markers, tracked in the browser. For each conversation the console remembers the
 * `msg_id` of the last message it had when the signed-in user had it open; a conversation is
 * unread when its last message is the customer's and is another one (ids, not times: two
 * messages can share a millisecond). The marks are kept in
 * localStorage per tenant and user, so they survive a reload and are shared by the tabs of one
 * browser; another browser or device starts with every customer message unread. The server keeps
 * no read state (it has no endpoint for it); this is the documented choice (docs/console.md).
 */
import { useCallback, useEffect, useState } from 'react';
import type { ConversationView } from '@parley/protocol';

type Marks = Record<string, string>;

/** At most this many conversations are remembered; those with the lowest ids are dropped first. */
const MAX_MARKS = 500;

const storageKey = (tenantId: number, userId: number) => `parley.console.read.${tenantId}.${userId}`;

function load(key: string): Marks {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(key) ?? '{}');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Marks) : {};
  } catch {
    return {};
  }
}

function save(key: string, marks: Marks): void {
  const entries = Object.entries(marks);
  const kept = entries.length > MAX_MARKS ? Object.fromEntries(entries.sort((a, b) => Number(b[0]) - Number(a[0])).slice(0, MAX_MARKS)) : marks;
  try {
    window.localStorage.setItem(key, JSON.stringify(kept));
  } catch {
    // storage full or disabled: the marks last for this page only
  }
}

export interface ReadMarks {
  isUnread(conversation: ConversationView): boolean;
  /** Marks the conversation read up to its last message (none yet: nothing to mark). */
  markRead(conversation: ConversationView): void;
}

export function useReadMarks(tenantId: number, userId: number): ReadMarks {
  const key = storageKey(tenantId, userId);
  const [marks, setMarks] = useState<Marks>(() => load(key));

  // Another tab that opens a conversation clears its marker here too.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === key) setMarks(load(key));
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [key]);

  const markRead = useCallback(
    (conversation: ConversationView) => {
      const last = conversation.lastMessage?.msg_id;
      if (last === undefined) return;
      setMarks((current) => {
        if (current[conversation.id] === last) return current;
        const next = { ...current, [conversation.id]: last };
        save(key, next);
        return next;
      });
    },
    [key],
  );

  const isUnread = (c: ConversationView) => c.lastMessage?.direction === 'customer' && c.lastMessage.msg_id !== marks[c.id];
  return { isUnread, markRead };
}
