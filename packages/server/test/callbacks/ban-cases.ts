/**
 * The callback-rule ban rule (spec section 3, contract 4.5, docs/callbacks.md "Rule bans") as one
 * table of cases. `ban.test.ts` runs every case against each implementation of the rule:
 * - the pure functions of `src/modules/callbacks/ban.ts` (`observe`, `expireBan`), which the
 *   in-process `BanRegistry` applies;
 * - `RedisBanStore` (`src/modules/callbacks/redis-bans.ts`), whose Lua script applies the rule
 *   inside Redis, on a real Redis.
 *
 * Why two implementations and one table, rather than one implementation: with several instances
 * the ban state is shared, and each observation is a read-modify-write of it (window, ban count,
 * ban end) that must not interleave with another instance's. The Lua script makes that step
 * atomic in one round trip; running the TypeScript function instead would need a lock or an
 * optimistic WATCH/MULTI retry loop on every failed attempt, and a single instance must not need
 * Redis at all. So the rule is written twice and this table is what keeps the two equal: a rule
 * dropped from either makes a case here fail.
 *
 * A case is a sequence of steps on one rule that starts fresh. A step is either `n` observations
 * of one kind, `every` ms apart from `at`, or a check for an elapsed ban at `at` (`expireBan`; the
 * Redis store's `stateOf`). Times are ms from the start of the case. After each step, `then` is the
 * rule's state (windows given by their sizes) and `events` what the step emitted, in order.
 */
import type { BanObservation, BanReason, RuleStatus } from '../../src/modules/callbacks/ban.js';

export const S = 1_000;
export const MIN = 60 * S;
export const H = 60 * MIN;

export interface ExpectedBanState {
  status: RuleStatus;
  banCount: number;
  bannedUntil: number | null;
  lastBanEnd: number | null;
  /** Number of events in each window. */
  failures: number;
  overlong: number;
}

export type ExpectedBanEvent =
  | { banned: number; count: number; minutes: number; reason: BanReason }
  | { unbanned: number; count: number };

interface Outcome {
  then: ExpectedBanState;
  events: ExpectedBanEvent[];
}

export type BanCaseStep =
  | ({ at: number; observe: BanObservation; n?: number; every?: number } & Outcome)
  | ({ at: number; expire: true } & Outcome);

export interface BanCase {
  name: string;
  steps: BanCaseStep[];
}

const FRESH: ExpectedBanState = { status: 'active', banCount: 0, bannedUntil: null, lastBanEnd: null, failures: 0, overlong: 0 };

// Six bans in a row, each started by 90 failures 10 ms apart one minute after the previous ban
// ended: the 90th failure comes 890 ms after the first.
const BAN1 = 890;
const END1 = BAN1 + 5 * MIN;
const BAN2 = END1 + MIN + 890;
const END2 = BAN2 + 10 * MIN;
const BAN3 = END2 + MIN + 890;
const END3 = BAN3 + 15 * MIN;
const BAN4 = END3 + MIN + 890;
const END4 = BAN4 + 20 * MIN;
const BAN5 = END4 + MIN + 890;
const END5 = BAN5 + 25 * MIN;
const BAN6 = END5 + MIN + 890;
const END6 = BAN6 + 25 * MIN;

/** The state right after a ban: windows empty, the ban end is also the latest ban end. */
const bannedState = (banCount: number, until: number): ExpectedBanState => ({
  status: 'banned',
  banCount,
  bannedUntil: until,
  lastBanEnd: until,
  failures: 0,
  overlong: 0,
});

export const BAN_CASES: BanCase[] = [
  {
    name: 'failures: 89 within 30 s keep the rule active; the 90th bans it for 5 minutes',
    steps: [
      { at: 0, observe: 'failure', n: 89, every: 100, then: { ...FRESH, failures: 89 }, events: [] },
      {
        at: 8_900,
        observe: 'failure',
        then: bannedState(1, 8_900 + 5 * MIN),
        events: [{ banned: 8_900, count: 1, minutes: 5, reason: 'failures' }],
      },
    ],
  },
  {
    name: 'over-long answers: 89 within 30 s keep the rule active; the 90th bans it for 5 minutes',
    steps: [
      { at: 0, observe: 'overlong', n: 89, every: 50, then: { ...FRESH, overlong: 89 }, events: [] },
      {
        at: 4_450,
        observe: 'overlong',
        then: bannedState(1, 4_450 + 5 * MIN),
        events: [{ banned: 4_450, count: 1, minutes: 5, reason: 'overlong' }],
      },
    ],
  },
  {
    name: 'the two kinds are counted separately: 89 failures and 89 over-long answers do not ban',
    steps: [
      { at: 0, observe: 'failure', n: 89, every: 10, then: { ...FRESH, failures: 89 }, events: [] },
      { at: 1_000, observe: 'overlong', n: 89, every: 10, then: { ...FRESH, failures: 89, overlong: 89 }, events: [] },
      {
        at: 2_000,
        observe: 'overlong',
        then: bannedState(1, 2_000 + 5 * MIN),
        events: [{ banned: 2_000, count: 1, minutes: 5, reason: 'overlong' }],
      },
    ],
  },
  {
    name: 'window edge: a failure exactly 30 s old no longer counts',
    steps: [
      { at: 0, observe: 'failure', then: { ...FRESH, failures: 1 }, events: [] },
      { at: 29_911, observe: 'failure', n: 88, every: 1, then: { ...FRESH, failures: 89 }, events: [] },
      // The failure at 0 leaves as this one arrives: still 89.
      { at: 30_000, observe: 'failure', then: { ...FRESH, failures: 89 }, events: [] },
    ],
  },
  {
    name: 'window edge: a failure 1 ms short of 30 s old still counts, so the 90th bans',
    steps: [
      { at: 0, observe: 'failure', then: { ...FRESH, failures: 1 }, events: [] },
      { at: 29_911, observe: 'failure', n: 88, every: 1, then: { ...FRESH, failures: 89 }, events: [] },
      {
        at: 29_999,
        observe: 'failure',
        then: bannedState(1, 29_999 + 5 * MIN),
        events: [{ banned: 29_999, count: 1, minutes: 5, reason: 'failures' }],
      },
    ],
  },
  {
    name: 'window edge: over-long answers slide the same way',
    steps: [
      { at: 0, observe: 'overlong', then: { ...FRESH, overlong: 1 }, events: [] },
      { at: 29_911, observe: 'overlong', n: 88, every: 1, then: { ...FRESH, overlong: 89 }, events: [] },
      { at: 30_000, observe: 'overlong', then: { ...FRESH, overlong: 89 }, events: [] },
    ],
  },
  {
    name: 'the window slides: 300 failures 340 ms apart (90 span 30.26 s) never ban',
    steps: [
      // At the last one (101,660 ms) the window holds those from 71,740 ms on: 89.
      { at: 0, observe: 'failure', n: 300, every: 340, then: { ...FRESH, failures: 89 }, events: [] },
    ],
  },
  {
    name: 'a burst after a quiet spell counts only the failures of the last 30 s',
    steps: [
      { at: 0, observe: 'failure', n: 80, every: 10, then: { ...FRESH, failures: 80 }, events: [] },
      { at: 60_000, observe: 'failure', n: 80, every: 10, then: { ...FRESH, failures: 80 }, events: [] },
      {
        at: 61_000,
        observe: 'failure',
        n: 10,
        every: 10,
        then: bannedState(1, 61_090 + 5 * MIN),
        events: [{ banned: 61_090, count: 1, minutes: 5, reason: 'failures' }],
      },
    ],
  },
  {
    name: 'outcomes observed while banned change nothing',
    steps: [
      {
        at: 0,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, END1),
        events: [{ banned: BAN1, count: 1, minutes: 5, reason: 'failures' }],
      },
      { at: 1_000, observe: 'failure', n: 200, every: 10, then: bannedState(1, END1), events: [] },
      { at: 5_000, observe: 'overlong', n: 100, every: 10, then: bannedState(1, END1), events: [] },
    ],
  },
  {
    name: 'a ban clears both windows, also the one of the other kind',
    steps: [
      { at: 0, observe: 'overlong', n: 89, every: 10, then: { ...FRESH, overlong: 89 }, events: [] },
      {
        at: 1_000,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, 1_890 + 5 * MIN),
        events: [{ banned: 1_890, count: 1, minutes: 5, reason: 'failures' }],
      },
      {
        at: 1_890 + 5 * MIN,
        expire: true,
        then: { ...FRESH, banCount: 1, lastBanEnd: 1_890 + 5 * MIN },
        events: [{ unbanned: 1_890 + 5 * MIN, count: 1 }],
      },
      { at: 1_890 + 5 * MIN + 10, observe: 'overlong', then: { ...FRESH, banCount: 1, lastBanEnd: 1_890 + 5 * MIN, overlong: 1 }, events: [] },
    ],
  },
  {
    name: 'the ban ends at its end time, not 1 ms before; the rule counts again after',
    steps: [
      {
        at: 0,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, END1),
        events: [{ banned: BAN1, count: 1, minutes: 5, reason: 'failures' }],
      },
      { at: END1 - 1, expire: true, then: bannedState(1, END1), events: [] },
      { at: END1, expire: true, then: { ...FRESH, banCount: 1, lastBanEnd: END1 }, events: [{ unbanned: END1, count: 1 }] },
      { at: END1, expire: true, then: { ...FRESH, banCount: 1, lastBanEnd: END1 }, events: [] },
      { at: END1 + 10, observe: 'failure', then: { ...FRESH, banCount: 1, lastBanEnd: END1, failures: 1 }, events: [] },
    ],
  },
  {
    name: 'an outcome after the ban end first ends the ban, then counts',
    steps: [
      {
        at: 0,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, END1),
        events: [{ banned: BAN1, count: 1, minutes: 5, reason: 'failures' }],
      },
      {
        at: END1 + 5,
        observe: 'failure',
        then: { ...FRESH, banCount: 1, lastBanEnd: END1, failures: 1 },
        events: [{ unbanned: END1 + 5, count: 1 }],
      },
    ],
  },
  {
    name: 'consecutive bans last 5, 10, 15, 20, 25, then 25 minutes: the ban count is capped at 5',
    steps: [
      {
        at: 0,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, END1),
        events: [{ banned: BAN1, count: 1, minutes: 5, reason: 'failures' }],
      },
      {
        at: END1 + MIN,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(2, END2),
        events: [
          { unbanned: END1 + MIN, count: 1 },
          { banned: BAN2, count: 2, minutes: 10, reason: 'failures' },
        ],
      },
      {
        at: END2 + MIN,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(3, END3),
        events: [
          { unbanned: END2 + MIN, count: 2 },
          { banned: BAN3, count: 3, minutes: 15, reason: 'failures' },
        ],
      },
      {
        at: END3 + MIN,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(4, END4),
        events: [
          { unbanned: END3 + MIN, count: 3 },
          { banned: BAN4, count: 4, minutes: 20, reason: 'failures' },
        ],
      },
      {
        at: END4 + MIN,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(5, END5),
        events: [
          { unbanned: END4 + MIN, count: 4 },
          { banned: BAN5, count: 5, minutes: 25, reason: 'failures' },
        ],
      },
      {
        at: END5 + MIN,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(5, END6),
        events: [
          { unbanned: END5 + MIN, count: 5 },
          { banned: BAN6, count: 5, minutes: 25, reason: 'failures' },
        ],
      },
    ],
  },
  {
    name: 'a ban exactly 24 h after the previous ban ended is consecutive (24 h from its end, not its start)',
    steps: [
      {
        at: 0,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, END1),
        events: [{ banned: BAN1, count: 1, minutes: 5, reason: 'failures' }],
      },
      { at: END1, expire: true, then: { ...FRESH, banCount: 1, lastBanEnd: END1 }, events: [{ unbanned: END1, count: 1 }] },
      {
        at: END1 + 24 * H - 890,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(2, END1 + 24 * H + 10 * MIN),
        events: [{ banned: END1 + 24 * H, count: 2, minutes: 10, reason: 'failures' }],
      },
    ],
  },
  {
    name: 'a ban more than 24 h after the previous ban ended starts the count again at 1',
    steps: [
      {
        at: 0,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, END1),
        events: [{ banned: BAN1, count: 1, minutes: 5, reason: 'failures' }],
      },
      {
        at: END1 + MIN,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(2, END2),
        events: [
          { unbanned: END1 + MIN, count: 1 },
          { banned: BAN2, count: 2, minutes: 10, reason: 'failures' },
        ],
      },
      {
        at: END2 + 24 * H + 1 - 890,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, END2 + 24 * H + 1 + 5 * MIN),
        events: [
          { unbanned: END2 + 24 * H + 1 - 890, count: 2 },
          { banned: END2 + 24 * H + 1, count: 1, minutes: 5, reason: 'failures' },
        ],
      },
    ],
  },
  {
    name: 'a ban by over-long answers continues a streak started by failures',
    steps: [
      {
        at: 0,
        observe: 'failure',
        n: 90,
        every: 10,
        then: bannedState(1, END1),
        events: [{ banned: BAN1, count: 1, minutes: 5, reason: 'failures' }],
      },
      {
        at: END1 + MIN,
        observe: 'overlong',
        n: 90,
        every: 10,
        then: bannedState(2, END2),
        events: [
          { unbanned: END1 + MIN, count: 1 },
          { banned: BAN2, count: 2, minutes: 10, reason: 'overlong' },
        ],
      },
    ],
  },
];
