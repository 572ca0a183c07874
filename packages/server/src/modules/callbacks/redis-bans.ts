/**
 * Ban state shared by every instance (REDIS_URL set). The machine of ban.ts runs inside Redis as
 * one Lua script per observation, so the failure window, the ban count and the ban end are read
 * and written atomically: 45 failures seen by each of two instances make one window of 90 and
 * one ban, and only the instance whose observation crossed the threshold emits `rule.banned`.
 *
 *   {prefix}cb:ban:{ruleId}   the rule's BanState as JSON (expires 25 h after its last change)
 *   {prefix}cb:banned         sorted set: banned rule id → ban end, for the expiry task
 *
 * The script applies the rule of `observe` / `expireBan` (same constants, passed in) at the time
 * the caller passes, from the injected clock; only the key's expiry runs on Redis's own clock.
 * One table of cases, test/callbacks/ban-cases.ts, runs against the script and ban.ts alike and
 * keeps the two equal: a change to the rule goes into both and into the table.
 *
 * Transitions (banned, unbanned) are also saved to the rule row, which seeds the state when Redis
 * has none (first use, Redis flushed). When Redis cannot be reached, the last state this instance
 * saw is used and observations are not counted: deliveries continue rather than stall.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../../kernel/clock.js';
import {
  BAN_COUNT_CAP,
  BAN_STREAK_MS,
  BAN_THRESHOLD,
  BAN_UNIT_MS,
  BAN_WINDOW_MS,
  expireBan,
  isBanned,
  parseBanState,
  type BanObservation,
  type BanState,
} from './ban.js';
import type { BanStore } from './ban-registry.js';
import type { CallbackEvents } from './events.js';
import type { CallbackRule, CallbacksRepository } from './ports.js';

// KEYS: state, banned set. ARGV: op (observe|expire), now, seed JSON ('' = none), observation,
// rule id, key ttl, threshold, window, unit, cap, streak.
const SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then
  if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[5]) return false end
  raw = ARGV[3]
end
local s = cjson.decode(raw)
local function num(x) if type(x) == 'number' then return x end return nil end
local function arr(a)
  local out = {}
  if type(a) == 'table' then for _, v in ipairs(a) do if type(v) == 'number' then out[#out + 1] = v end end end
  return out
end
local now = tonumber(ARGV[2])
local threshold, window, unit, cap, streakMs = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local status, bannedUntil = s.status, num(s.bannedUntil)
if status ~= 'banned' or bannedUntil == nil then status = 'active' bannedUntil = nil end
local banCount, lastBanEnd = num(s.banCount) or 0, num(s.lastBanEnd)
local failures, overlong = arr(s.failures), arr(s.overlong)
local events = {}
local changed = false
if status == 'banned' and now >= bannedUntil then
  status = 'active' bannedUntil = nil failures = {} overlong = {}
  events[#events + 1] = {'unbanned', banCount}
  changed = true
end
if ARGV[1] == 'observe' and status == 'active' then
  local list = overlong
  if ARGV[4] == 'failure' then list = failures end
  local kept = {}
  for _, t in ipairs(list) do if t > now - window then kept[#kept + 1] = t end end
  kept[#kept + 1] = now
  table.sort(kept)
  if #kept < threshold then
    if ARGV[4] == 'failure' then failures = kept else overlong = kept end
  else
    if lastBanEnd ~= nil and now - lastBanEnd <= streakMs then banCount = math.min(banCount + 1, cap) else banCount = 1 end
    local duration = math.min(math.max(1, banCount), cap) * unit
    bannedUntil = now + duration
    lastBanEnd = bannedUntil
    status = 'banned' failures = {} overlong = {}
    events[#events + 1] = {'banned', banCount, bannedUntil, duration}
  end
  changed = true
end
local state = {status = status, banCount = banCount, bannedUntil = bannedUntil or cjson.null, lastBanEnd = lastBanEnd or cjson.null, failures = failures, overlong = overlong}
local out = cjson.encode(state)
if changed then
  redis.call('SET', KEYS[1], out, 'PX', ARGV[6])
  if status == 'banned' then redis.call('ZADD', KEYS[2], bannedUntil, ARGV[5]) else redis.call('ZREM', KEYS[2], ARGV[5]) end
end
return {out, cjson.encode(events)}
`;

type ScriptEvent = ['unbanned', number] | ['banned', number, number, number];

/** Redis keeps a state this long after its last change: past the 24 h streak, windows are moot. */
const STATE_TTL_MS = BAN_STREAK_MS + 3_600_000;

export class RedisBanStore implements BanStore {
  /** Last state seen per rule: the fallback while Redis is unreachable. */
  private readonly seen = new Map<number, BanState>();
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      redis: Redis;
      prefix: string;
      /** Transitions are saved to the rule row. */
      repo: Pick<CallbacksRepository, 'saveBanState'>;
      clock: Clock;
      events: CallbackEvents;
      /** App and name of a rule, for events of the expiry task. */
      lookup: (ruleId: number) => Promise<{ appId: string; name: string } | undefined>;
      onError: (error: unknown) => void;
    },
  ) {}

  private stateKey(ruleId: number): string {
    return `${this.deps.prefix}cb:ban:${ruleId}`;
  }

  private get bannedKey(): string {
    return `${this.deps.prefix}cb:banned`;
  }

  /** Runs the machine in Redis; undefined when Redis holds no state and no seed was given. */
  private async run(
    op: 'observe' | 'expire',
    ruleId: number,
    now: number,
    seed: BanState | undefined,
    observation: BanObservation | '' = '',
  ): Promise<{ state: BanState; events: ScriptEvent[] } | undefined> {
    const result = (await this.deps.redis.eval(
      SCRIPT,
      2,
      this.stateKey(ruleId),
      this.bannedKey,
      op,
      String(now),
      seed ? JSON.stringify(seed) : '',
      observation,
      String(ruleId),
      String(STATE_TTL_MS),
      String(BAN_THRESHOLD),
      String(BAN_WINDOW_MS),
      String(BAN_UNIT_MS),
      String(BAN_COUNT_CAP),
      String(BAN_STREAK_MS),
    )) as [string, string] | null;
    if (!result) return undefined;
    const state = parseBanState(JSON.parse(result[0]));
    const parsedEvents = JSON.parse(result[1]) as unknown;
    const events = Array.isArray(parsedEvents) ? (parsedEvents as ScriptEvent[]) : [];
    this.seen.set(ruleId, state);
    return { state, events };
  }

  private emit(
    ruleId: number,
    ref: { appId: string; name: string },
    state: BanState,
    events: ScriptEvent[],
    now: number,
    observation: BanObservation = 'failure',
  ): void {
    if (events.length === 0) return;
    // Transitions go to the rule row too: they survive a Redis restart.
    const write = this.deps.repo
      .saveBanState(ruleId, state, now)
      .catch(this.deps.onError)
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
    const rule = { ruleId, appId: ref.appId, rule: ref.name };
    for (const e of events) {
      if (e[0] === 'banned') {
        this.deps.events.emit('rule.banned', {
          ...rule,
          type: 'rule.banned',
          at: now,
          banCount: e[1],
          bannedUntil: e[2],
          durationMs: e[3],
          reason: observation === 'failure' ? 'failures' : 'overlong',
        });
      } else {
        this.deps.events.emit('rule.unbanned', { ...rule, type: 'rule.unbanned', at: now, banCount: e[1] });
      }
    }
  }

  private fallback(rule: CallbackRule, now: number): BanState {
    return expireBan(this.seen.get(rule.id) ?? rule.ban, now).state;
  }

  async stateOf(rule: CallbackRule, now = this.deps.clock.now()): Promise<BanState> {
    try {
      const out = await this.run('expire', rule.id, now, rule.ban);
      if (!out) return this.fallback(rule, now);
      this.emit(rule.id, { appId: rule.appId, name: rule.name }, out.state, out.events, now);
      return out.state;
    } catch (error) {
      this.deps.onError(error);
      return this.fallback(rule, now);
    }
  }

  async viewOf(rule: CallbackRule, now = this.deps.clock.now()): Promise<BanState> {
    try {
      const raw = await this.deps.redis.get(this.stateKey(rule.id));
      return expireBan(raw ? parseBanState(JSON.parse(raw)) : rule.ban, now).state;
    } catch (error) {
      this.deps.onError(error);
      return this.fallback(rule, now);
    }
  }

  async isBanned(rule: CallbackRule, now = this.deps.clock.now()): Promise<boolean> {
    return isBanned(await this.stateOf(rule, now), now);
  }

  async record(rule: CallbackRule, observation: BanObservation, now = this.deps.clock.now()): Promise<void> {
    try {
      const out = await this.run('observe', rule.id, now, rule.ban, observation);
      if (!out) return;
      this.emit(rule.id, { appId: rule.appId, name: rule.name }, out.state, out.events, now, observation);
    } catch (error) {
      this.deps.onError(error);
    }
  }

  async tick(now = this.deps.clock.now()): Promise<void> {
    const due = await this.deps.redis.zrangebyscore(this.bannedKey, '-inf', now);
    for (const id of due.map(Number)) {
      const out = await this.run('expire', id, now, undefined);
      if (!out || out.events.length === 0) continue;
      const ref = await this.deps.lookup(id);
      if (ref) this.emit(id, ref, out.state, out.events, now);
    }
  }

  async forget(ruleId: number): Promise<void> {
    this.seen.delete(ruleId);
    await this.deps.redis
      .multi()
      .del(this.stateKey(ruleId))
      .zrem(this.bannedKey, String(ruleId))
      .exec()
      .catch(this.deps.onError);
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }
}
