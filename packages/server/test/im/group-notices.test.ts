/**
 * Who hears of a group operation, and as what (pure): the operator is never told, a user added
 * to a group is told they were (not to a chat room), a removed user is told apart from the rest.
 */
import { describe, expect, it } from 'vitest';
import type { GroupOperation, GroupOperationEvent } from '../../src/modules/im/group-events.js';
import { keptOffline, noticesOf } from '../../src/modules/im/group-notices.js';

const event = (operation: GroupOperation, operator: string | null, kind: 'group' | 'chatroom' = 'group'): GroupOperationEvent => ({
  ...operation,
  appId: 'app',
  appkey: 'acme#shop',
  kind,
  groupId: '42',
  groupName: 'team',
  owner: 'ann',
  operator,
  memberCount: 3,
  timestamp: 1,
});

/** `user: operation from → to` lines, sorted. */
const told = (e: GroupOperationEvent, members: string[]) =>
  noticesOf(e, members)
    .flatMap((n) => n.to.map((user) => `${user}: ${n.frame.operation} ${n.frame.from}${n.frame.to ? ` → ${n.frame.to}` : ''}`))
    .sort();

describe('group notices', () => {
  it('an invitation: the invited user joined directly, the others see them arrive, the inviter hears nothing', () => {
    expect(told(event({ op: 'join', users: ['cal'], way: 'INVITE' }, 'ben'), ['ann', 'ben', 'cal'])).toEqual(['ann: memberPresence cal', 'cal: directJoined ben → cal']);
  });

  it('a user joining on their own, or a chat room, gets no directJoined', () => {
    expect(told(event({ op: 'join', users: ['cal'], way: 'APPLY' }, 'cal'), ['ann', 'cal'])).toEqual(['ann: memberPresence cal']);
    expect(told(event({ op: 'join', users: ['cal'], way: 'DIRECT' }, 'cal', 'chatroom'), ['ann', 'cal'])).toEqual(['ann: memberPresence cal']);
  });

  it('a removal tells the removed user and the rest apart; the app is named admin', () => {
    expect(told(event({ op: 'kick', user: 'cal' }, null), ['ann', 'ben'])).toEqual(['ann: memberAbsence cal', 'ben: memberAbsence cal', 'cal: removeMember admin → cal']);
  });

  it('a deletion tells who was in it, but the one who deleted it', () => {
    expect(told(event({ op: 'destroy', members: ['ann', 'ben'] }, 'ann'), [])).toEqual(['ben: destroy ann']);
  });

  it('a request to join goes to the owner only; its refusal to the applicant only', () => {
    expect(told(event({ op: 'apply', user: 'dan', reason: 'hi' }, 'dan'), ['ann', 'ben'])).toEqual(['ann: requestToJoin dan → ann']);
    expect(told(event({ op: 'decline', user: 'dan', reason: '' }, 'ann'), ['ann', 'ben'])).toEqual(['dan: joinPublicGroupDeclined ann → dan']);
  });

  it('an invitation held for confirmation goes to the invitees; its answer to the inviter, with memberPresence to the rest on acceptance', () => {
    expect(told(event({ op: 'invite', users: ['cal', 'dan'], reason: '' }, 'ben'), ['ann', 'ben'])).toEqual(['cal: inviteToJoin ben → cal', 'dan: inviteToJoin ben → dan']);
    expect(told(event({ op: 'join', users: ['cal'], way: 'INVITE', inviter: 'ben' }, 'cal'), ['ann', 'ben', 'cal'])).toEqual(['ann: memberPresence cal', 'ben: acceptInvite cal → ben', 'ben: memberPresence cal']);
    expect(told(event({ op: 'inviteDecline', user: 'cal', inviter: 'ben' }, 'cal'), ['ann', 'ben'])).toEqual(['ben: rejectInvite cal → ben']);
  });

  it('notices about the user they reach are kept for them offline; others\' joins, leaves and edits, and chat-room notices, are not', () => {
    const keptFor = (e: GroupOperationEvent, members: string[]) =>
      noticesOf(e, members)
        .flatMap((n) => n.to.filter((user) => keptOffline(n.frame, user)).map((user) => `${user}: ${n.frame.operation}`))
        .sort();
    expect(keptFor(event({ op: 'join', users: ['cal'], way: 'INVITE' }, 'ann'), ['ann', 'ben', 'cal'])).toEqual(['cal: directJoined']);
    expect(keptFor(event({ op: 'kick', user: 'cal' }, 'ann'), ['ann', 'ben'])).toEqual(['cal: removeMember']);
    expect(keptFor(event({ op: 'leave', user: 'cal' }, 'cal'), ['ann', 'ben'])).toEqual([]);
    expect(keptFor(event({ op: 'update' }, 'ann'), ['ann', 'ben'])).toEqual([]);
    // The event's `owner` is the new owner once changed.
    expect(keptFor({ ...event({ op: 'owner', previous: 'ann', owner: 'ben' }, 'ann'), owner: 'ben' }, ['ann', 'ben', 'cal'])).toEqual(['ben: changeOwner']);
    expect(keptFor(event({ op: 'destroy', members: ['ann', 'ben'] }, 'ann'), [])).toEqual(['ben: destroy']);
    expect(keptFor(event({ op: 'kick', user: 'cal' }, 'ann', 'chatroom'), ['ann'])).toEqual([]);
  });
});
