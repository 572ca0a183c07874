/**
 * The agent event stream (server-sent events). Events are notifications, not a log: every event
 * (and every reconnect, announced by `ready`) just bumps a version that the workspace's lists and
 * the open conversation reload on.
 */
import { useEffect, useState } from 'react';
import type { ChannelEvent } from '@parley/protocol';

const EVENT_TYPES: Array<ChannelEvent['type'] | 'ready'> = ['ready', 'new_conversation', 'new_message', 'assignment', 'delivery_status'];

export type StreamState = 'connecting' | 'live' | 'reconnecting';

/**
 * `types`: the events that bump the version (by default the workspace's). `last` is the latest
 * event; `arrival` the latest `new_conversation` (kept apart: the first message of a conversation
 * follows its `new_conversation` at once, and would hide it in `last`).
 */
export function useEventStream(
  url: string,
  types: ReadonlyArray<ChannelEvent['type'] | 'ready'> = EVENT_TYPES,
): { version: number; state: StreamState; last: ChannelEvent | undefined; arrival: ChannelEvent | undefined } {
  const [version, setVersion] = useState(0);
  const [state, setState] = useState<StreamState>('connecting');
  const [last, setLast] = useState<ChannelEvent | undefined>(undefined);
  const [arrival, setArrival] = useState<ChannelEvent | undefined>(undefined);
  useEffect(() => {
    const source = new EventSource(url);
    const onEvent = (event: MessageEvent<string>) => {
      if (event.type === 'ready') setState('live');
      else {
        try {
          const parsed = JSON.parse(event.data) as ChannelEvent;
          setLast(parsed);
          if (parsed.type === 'new_conversation') setArrival(parsed);
        } catch {
          // a malformed event still means something changed
        }
      }
      setVersion((v) => v + 1);
    };
    for (const type of types) source.addEventListener(type, onEvent as EventListener);
    // EventSource reconnects by itself (the server asks for 3 s); `ready` marks it live again.
    source.onerror = () => setState('reconnecting');
    return () => source.close();
    // `types` is a constant of the caller's module.
  }, [url]);
  return { version, state, last, arrival };
}

/** A clock for "waiting 3 min" labels, ticking every 15 s. */
export function useNow(intervalMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function waitingFor(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
