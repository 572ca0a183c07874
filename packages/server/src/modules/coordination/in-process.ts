import { EventEmitter } from 'node:events';
import type { Coordination, PubSub, Singletons } from './ports.js';
import { InProcessSettingsVersions } from './settings-versions.js';

export class InProcessPubSub implements PubSub {
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  publish(topic: string, payload: string): void {
    this.emitter.emit(topic, payload);
  }
  async subscribe(topic: string, handler: (payload: string) => void): Promise<() => void> {
    const safe = (payload: string) => {
      try {
        handler(payload);
      } catch {
        /* a failing subscriber must not break the publisher or the others */
      }
    };
    this.emitter.on(topic, safe);
    return () => this.emitter.off(topic, safe);
  }
}

/** One process: it always holds every lock. */
export class InProcessSingletons implements Singletons {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly onError: (name: string, error: unknown) => void = () => undefined) {}

  every(name: string, intervalMs: number, task: () => Promise<void>): void {
    if (this.timers.has(name)) throw new Error(`singleton ${name} already registered`);
    const tick = () => {
      const run = task()
        .catch((error: unknown) => this.onError(name, error))
        .finally(() => this.running.delete(run));
      this.running.add(run);
    };
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    this.timers.set(name, timer);
  }

  holds(name: string): boolean {
    return this.timers.has(name);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers.values()) clearInterval(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }
}

export function inProcessCoordination(onError?: (name: string, error: unknown) => void): Coordination {
  const singletons = new InProcessSingletons(onError);
  return { kind: 'in-process', pubsub: new InProcessPubSub(), singletons, settings: new InProcessSettingsVersions(), close: () => singletons.stop() };
}
