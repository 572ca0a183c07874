/**
 * "A group operation happened": one typed event per group or chat-room operation, emitted by the
 * groups service after its write committed, whoever asked (app token over REST, a user token over
 * REST, a JSON socket or msync chat-room join). Subscribers decide what it means to them: the
 * notifier tells the members' open sockets (group-notices.ts), the callbacks module sends
 * `group_op_event` records. A subscriber's failure never reaches the caller or the other
 * subscribers.
 */
import type { GroupKind, GroupSettings } from './ports.js';

/** Who did it: a user, or the app (`null`: an app-admin token). */
export type Operator = string | null;

/** How users came into a group: created with it, added or invited by someone, or joined themselves. */
export type JoinWay = 'DIRECT' | 'INVITE' | 'APPLY';

export type GroupOperation =
  | {
      op: 'create';
      /** The members added with it, the owner excluded. */
      members: string[];
      public: boolean;
      maxusers: number;
      description: string;
      settings: GroupSettings;
      createdAt: number;
    }
  /** `members`: who was in it, the owner included. */
  | { op: 'destroy'; members: string[] }
  /** `inviter`: the users accepted an invitation of theirs (a group that needs the invitee's confirmation). */
  | { op: 'join'; users: string[]; way: JoinWay; inviter?: string }
  | { op: 'leave'; user: string }
  | { op: 'kick'; user: string }
  | { op: 'owner'; previous: string; owner: string }
  | { op: 'update' }
  /** A user asked to join a group that needs its owner's approval (no member changed yet). */
  | { op: 'apply'; user: string; reason: string }
  /** The owner declined a request to join. */
  | { op: 'decline'; user: string; reason: string }
  /** Users were invited to a group that needs their confirmation (no member changed yet). */
  | { op: 'invite'; users: string[]; reason: string }
  /** An invitee declined an invitation of `inviter`. */
  | { op: 'inviteDecline'; user: string; inviter: string }
  /** Roles and lists (group-roles.ts): an admin made or unmade by the owner. */
  | { op: 'admin'; user: string; added: boolean }
  /** Members muted until `expiresAt` (ms; -1: until unmuted), or unmuted. */
  | { op: 'mute'; users: string[]; expiresAt: number }
  | { op: 'unmute'; users: string[] }
  /** Users put on the block list; `removed` are those of them who were members (they are no more). */
  | { op: 'block'; users: string[]; removed: string[] }
  | { op: 'allow'; users: string[]; added: boolean }
  | { op: 'announcement'; text: string }
  /** Every member but the owner, the admins and the allow list muted (`disableSendGroupMsg`), or no more. */
  | { op: 'muteAll'; muted: boolean }
  /** A file shared in the group (`added`), or deleted from it (shared-files.ts). */
  | { op: 'shareFile'; fileId: string; fileName: string; added: boolean };

export type GroupOperationEvent = GroupOperation & {
  appId: string;
  /** `org#app` */
  appkey: string;
  kind: GroupKind;
  groupId: string;
  groupName: string;
  owner: string;
  operator: Operator;
  /** Members after the operation, the owner included (empty after a destroy). */
  memberCount: number;
  timestamp: number;
};

export type GroupEventListener = (event: GroupOperationEvent) => Promise<unknown>;

/** The subscribers of group operations, called in order after each committed operation. */
export class GroupEvents {
  private readonly listeners: GroupEventListener[] = [];

  constructor(private readonly onError: (error: unknown) => void = () => undefined) {}

  subscribe(listener: GroupEventListener): void {
    this.listeners.push(listener);
  }

  /** Hands the event to every subscriber; resolves when all are done (each failure reported, none thrown). */
  async emit(event: GroupOperationEvent): Promise<void> {
    await Promise.all(this.listeners.map((listener) => listener(event).catch((error: unknown) => this.onError(error))));
  }
}
