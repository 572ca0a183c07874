/**
 * The seam between the IM core and what happens after a message (post-send callbacks).
 *
 * The IM core calls `onMessages` once per fan-out job with the messages it accepted (one or many),
 * inside the job's transaction, after it has decided which receivers were offline. Implementations write their
 * own durable work (e.g. callback jobs) with `db` so it commits with the fan-out, and return the
 * job queues to wake once it has committed. Blocked (moderated) messages never reach it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';

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
  onMessages(db: Kysely<Database>, events: readonly MessageEvent[]): Promise<{ notify: string[] }>;
}

/** Used when no post-send feature is installed. */
export const noPostSend: PostSendHook = { onMessages: async () => ({ notify: [] }) };
