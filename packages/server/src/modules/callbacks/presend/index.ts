/**
 * The pre-send callback (contract 6.5) assembled over its repository: the rules' cache, the
 * check the IM module calls before every send, the service of the rule endpoints, and metrics.
 */
import type { Registry } from 'prom-client';
import type { Clock } from '../../../kernel/clock.js';
import type { SettingsVersions } from '../../coordination/settings-versions.js';
import type { OutboundSender } from '../../outbound/ports.js';
import { PresendCheck } from './check.js';
import { noPresendMetrics, promPresendMetrics } from './metrics.js';
import type { PresendRulesRepository } from './ports.js';
import { PresendRulesCache } from './rules-cache.js';
import { PresendService } from './service.js';

export interface PresendModule {
  /** The IM module's `PreSendHook`. */
  check: PresendCheck;
  service: PresendService;
}

export interface PresendDeps {
  repo: PresendRulesRepository;
  clock: Clock;
  outbound: OutboundSender;
  /** How long an app's rules are cached at most (a change made through Parley applies at once). */
  ruleCacheMs: number;
  metrics?: Registry;
  settings?: SettingsVersions;
}

export function createPresend(deps: PresendDeps): PresendModule {
  const cache = new PresendRulesCache(deps.repo, deps.clock, deps.ruleCacheMs, deps.settings);
  const metrics = deps.metrics ? promPresendMetrics(deps.metrics) : noPresendMetrics;
  return {
    check: new PresendCheck(cache, deps.outbound, deps.clock, metrics),
    service: new PresendService(deps.repo, cache, deps.outbound, deps.clock),
  };
}
