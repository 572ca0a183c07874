/**
 * The seam between the IM core and what happens after a message (post-send callbacks).
 *
 * The fan-out asks `jobsFor` once per run with the messages it is about to fan out (one or many),
 * after it decided which receivers were offline and before its transaction: the implementation
 * decides the durable work each message calls for (e.g. callback jobs), reading what it needs,
 * writing nothing. The fan-out writes those jobs in its own transaction, for the messages it
 * marks done there (so they commit with it, or not at all), and after the commit hands the jobs
 * written to `committed`, which wakes what runs them. Blocked (moderated) messages never reach it.
 */
import type { NewJob } from '../jobs/ports.js';

export type MessageChatType = 'chat' | 'groupchat' | 'chatroom';
export type MessageSource = 'rest' | 'sdk';

export interface MessageBody {
  type: string;
  [field: string]: unknown;
}

export interface MessageEvent {
  appId: string;
  /** `org#app` */
  appkey: string;
  msgId: string;
  from: string;
  /** User name for `chat`; group or chat-room id for the others. */
  to: string;
  chatType: MessageChatType;
  /** Group or chat-room id, for `groupchat` and `chatroom`. */
  groupId?: string;
  /** Unix ms at which Parley received the message. */
  timestamp: number;
  payload: { bodies: MessageBody[]; ext: Record<string, unknown> };
  source: MessageSource;
  /**
   * Receivers that were offline and got the message stored: the `to` user for a one-to-one
   * message, each offline member other than the sender for a group, never any for a chat room.
   */
  offlineReceivers: string[];
}

export interface PostSendHook {
  /** The jobs each event calls for, in the events' order (one list per event). Writes nothing. */
  jobsFor(events: readonly MessageEvent[]): Promise<NewJob[][]>;
  /** The jobs a fan-out transaction wrote have committed: wake (and start) what runs them. */
  committed(jobs: readonly NewJob[]): void;
}

/** Used when no post-send feature is installed. */
export const noPostSend: PostSendHook = { jobsFor: async (events) => events.map(() => []), committed: () => undefined };
