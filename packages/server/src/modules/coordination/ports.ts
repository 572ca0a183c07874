import type { SettingsVersions } from './settings-versions.js';

/**
 * Coordination between Parley instances. With one instance everything is in-process; with
 * `REDIS_URL` set the same ports are backed by Redis, so modules never know which they run on.
 */

/** Fire-and-forget messages to every instance (including this one). */
export interface PubSub {
  publish(topic: string, payload: string): void;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(topic: string, handler: (payload: string) => void): Promise<() => void>;
}

/**
 * Periodic work that must run on one instance at a time (retention, ban expiry). The instance that
 * holds the named lock runs it; when that instance dies its lock expires and another takes over.
 */
export interface Singletons {
  /** Runs `task` every `intervalMs` while this instance holds the lock `name`. */
  every(name: string, intervalMs: number, task: () => Promise<void>): void;
  /** Whether this instance currently holds `name` (tests, metrics). */
  holds(name: string): boolean;
  stop(): Promise<void>;
}

export interface Coordination {
  readonly kind: 'in-process' | 'redis';
  readonly pubsub: PubSub;
  readonly singletons: Singletons;
  /** Read-your-writes for cached settings (settings-versions.ts). */
  readonly settings: SettingsVersions;
  close(): Promise<void>;
}
