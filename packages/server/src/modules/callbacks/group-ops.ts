/**
 * `group_op_event` (contract 6.7b): group and chat-room operations as post-send callback records,
 * in Easemob's shape (`callback_group_room_*`: top-level `event`, `type` GROUP|CHATROOM,
 * `operation`, `operator`, `id`, `payload`). `recordsOf` is pure; `groupOpCallbacks` is the
 * subscriber of the IM groups' operation events: one delivery job per (record, rule listing
 * `group_op_event`), through the same signed, retried, banned and stored delivery as message records.
 */
import type { GroupOperationEvent } from '../im/group-events.js';
import type { NewJob } from '../jobs/ports.js';
import type { CallbacksCore, DeliverPayload } from './delivery.js';
import { ruleQueue, type CallbackDelivery } from './delivery.js';
import type { RuleDirectory } from './directory.js';
import type { GroupOpRecord } from './record.js';

/** The operator Easemob names for the app admin. */
export const APP_ADMIN_OPERATOR = '@ppAdmin';

/** Easemob writes the group's settings as strings in a creation record. */
const text = (value: boolean | number) => String(value);

/**
 * The records of one operation: one for most; a creation with members also has their JOIN
 * (`DIRECT`), a deletion the members' LEAVE (`DELETE`), as Easemob sends them. An edit of the
 * group's texts, a request to join and its refusal have none (an accepted request is a JOIN); so
 * have invitations held for the invitee's confirmation and their refusals (an accepted one is a
 * JOIN of type INVITE). A mute or unmute is a MUTE (`ADD` with its end, `REMOVE`); admins, block
 * and allow lists, announcements and the mute of all have none yet.
 */
export function groupOpRecords(event: GroupOperationEvent, newUuid: () => string): GroupOpRecord[] {
  const record = (operation: GroupOpRecord['operation'], payload?: Record<string, unknown>, memberCount?: number): GroupOpRecord => ({
    callId: `${event.appkey}_${newUuid()}`,
    ...(payload ? { payload } : {}),
    appkey: event.appkey,
    id: event.groupId,
    type: event.kind === 'group' ? 'GROUP' : 'CHATROOM',
    event: 'group_op_event',
    operation,
    operator: event.operator ?? APP_ADMIN_OPERATOR,
    ...(memberCount === undefined ? {} : { member_count: memberCount }),
    timestamp: event.timestamp,
  });
  switch (event.op) {
    case 'create': {
      const info = {
        owner: `${event.appkey}_${event.owner}`,
        created: text(event.createdAt),
        custom: event.settings.custom,
        description: event.description,
        mute: 'false',
        avatar: event.settings.avatar,
        title: event.groupName,
        max_users: text(event.maxusers),
        invite_need_confirm: text(event.settings.inviteNeedConfirm),
        public: text(event.public),
        allow_user_invites: text(event.settings.allowInvites),
        disabled: 'false',
        last_modified: text(event.createdAt),
      };
      const created = record('CREATE', { role: { [event.owner]: 'owner' }, member: event.members, info });
      return event.members.length === 0 ? [created] : [created, record('JOIN', { member: event.members, type: 'DIRECT' }, event.memberCount)];
    }
    case 'destroy':
      return [record('DELETE'), record('LEAVE', { member: event.members, type: 'DELETE' })];
    case 'join':
      return [record('JOIN', { member: event.users, type: event.way }, event.memberCount)];
    case 'leave':
      return [record('LEAVE', { member: [event.user], type: 'QUIT' })];
    case 'kick':
      return [record('LEAVE', { member: [event.user], type: 'KICK' })];
    case 'owner':
      return [record('UPDATE', { owner: event.previous, new_owner: event.owner, type: 'OWNER' })];
    case 'mute':
      return [record('MUTE', { member: event.users, expire_timestamp: event.expiresAt, type: 'ADD' })];
    case 'unmute':
      return [record('MUTE', { member: event.users, type: 'REMOVE' })];
    case 'update':
    case 'apply':
    case 'decline':
    case 'invite':
    case 'inviteDecline':
    case 'admin':
    case 'block':
    case 'allow':
    case 'announcement':
    case 'muteAll':
      return [];
  }
}

/**
 * The IM groups' subscriber: the records of each operation for each enabled rule of the app that
 * lists `group_op_event` (the other filters are about messages and do not apply), written as
 * delivery jobs in one transaction, the rules' workers then started and woken.
 */
export function groupOpCallbacks(
  core: Pick<CallbacksCore, 'uow' | 'jobs'> & { directory: RuleDirectory; delivery: CallbackDelivery },
  newUuid: () => string,
): (event: GroupOperationEvent) => Promise<void> {
  return async (event) => {
    const { settings, rules } = await core.directory.app(event.appId);
    if (!settings.enabled) return;
    const listening = rules.filter((rule) => rule.enabled && rule.eventTypes.includes('group_op_event'));
    if (listening.length === 0) return;
    // Each rule gets its own callIds: a callId names one callback, i.e. one (record, rule) pair.
    const jobs: NewJob[] = listening.flatMap((rule) =>
      groupOpRecords(event, newUuid).map((record) => ({ queue: ruleQueue(rule.id), payload: { ruleId: rule.id, record } satisfies DeliverPayload })),
    );
    if (jobs.length === 0) return;
    await core.uow.run((tx) => tx.jobs.enqueue(jobs));
    for (const rule of listening) {
      core.delivery.ensureWorker(rule.id);
      core.jobs.notify(ruleQueue(rule.id));
    }
  };
}
