/**
 * Where the live ban state of the rules lives. `BanRegistry` (one instance) holds it in this
 * process; `RedisBanStore` (redis-bans.ts) holds it in Redis so all instances share one window,
 * one ban count and one ban end. Both apply the machine of ban.ts and emit its events once.
 */
import type { Clock } from '../../kernel/clock.js';
import { expireBan, isBanned, observe, type BanObservation, type BanState, type BanStep } from './ban.js';
import type { CallbackEvents } from './events.js';
import type { CallbackRule, CallbacksRepository } from './ports.js';

export interface BanStore {
  /** The rule's state at `now`, ending an elapsed ban first. */
  stateOf(rule: CallbackRule, now?: number): Promise<BanState>;
  /** State for display. */
  viewOf(rule: CallbackRule, now?: number): Promise<BanState>;
  isBanned(rule: CallbackRule, now?: number): Promise<boolean>;
  record(rule: CallbackRule, observation: BanObservation, now?: number): Promise<void>;
  /** Ends elapsed bans (periodic, run on one instance; tests call it after moving the clock). */
  tick(now?: number): Promise<void>;
  forget(ruleId: number): Promise<void>;
  /** Resolves when every pending state write has finished. */
  flush(): Promise<void>;
}

interface Entry {
  appId: string;
  name: string;
  state: BanState;
  /** The running write loop, if any; it stores the latest state until nothing changed. */
  writing: Promise<void>;
  dirty: boolean;
}

/** Ban state held in this process (single instance), persisted to the rule row on every change. */
export class BanRegistry implements BanStore {
  private readonly entries = new Map<number, Entry>();

  constructor(
    private readonly repo: CallbacksRepository,
    private readonly clock: Clock,
    private readonly events: CallbackEvents,
    private readonly onError: (error: unknown) => void,
  ) {}

  private entry(rule: CallbackRule): Entry {
    let e = this.entries.get(rule.id);
    if (!e) {
      e = { appId: rule.appId, name: rule.name, state: rule.ban, writing: Promise.resolve(), dirty: false };
      this.entries.set(rule.id, e);
    }
    e.name = rule.name;
    return e;
  }

  /** The rule's state at `now`, ending an elapsed ban first. */
  async stateOf(rule: CallbackRule, now = this.clock.now()): Promise<BanState> {
    return this.stateNow(rule, now);
  }

  private stateNow(rule: CallbackRule, now: number): BanState {
    const e = this.entry(rule);
    // Active (the usual case, once per record): nothing can expire, so no step to build.
    if (e.state.status === 'banned') this.apply(rule.id, e, expireBan(e.state, now));
    return e.state;
  }

  /** State for display: the live one when this process holds it, else the stored one. */
  async viewOf(rule: CallbackRule, now = this.clock.now()): Promise<BanState> {
    const e = this.entries.get(rule.id);
    return expireBan(e ? e.state : rule.ban, now).state;
  }

  async isBanned(rule: CallbackRule, now = this.clock.now()): Promise<boolean> {
    return isBanned(this.stateNow(rule, now), now);
  }

  async record(rule: CallbackRule, observation: BanObservation, now = this.clock.now()): Promise<void> {
    const e = this.entry(rule);
    this.apply(rule.id, e, observe(e.state, observation, now));
  }

  /** Ends elapsed bans of every rule held here (called periodically and by tests). */
  async tick(now = this.clock.now()): Promise<void> {
    for (const [id, e] of this.entries) this.apply(id, e, expireBan(e.state, now));
  }

  async forget(ruleId: number): Promise<void> {
    this.entries.delete(ruleId);
  }

  /** Resolves when every pending state write has finished. */
  async flush(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.writing));
  }

  private apply(ruleId: number, e: Entry, step: BanStep): void {
    if (step.state === e.state) return;
    e.state = step.state;
    if (!e.dirty) {
      e.dirty = true;
      // Coalesce: one write loop per rule, writing the newest state, in order.
      e.writing = e.writing.then(async () => {
        while (e.dirty) {
          e.dirty = false;
          await this.repo.saveBanState(ruleId, e.state, this.clock.now()).catch(this.onError);
        }
      });
    }
    const ref = { ruleId, appId: e.appId, rule: e.name };
    for (const event of step.events) {
      if (event.type === 'rule.banned') this.events.emit('rule.banned', { ...ref, ...event });
      else this.events.emit('rule.unbanned', { ...ref, ...event });
    }
  }
}
