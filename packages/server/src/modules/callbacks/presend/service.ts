/**
 * What the pre-send rule endpoints do (contract 6.5): create, list, read, change, delete, and
 * replace the secret. HTTP-free; throws AppError for client errors.
 */
import {
  MAX_PRESEND_RULES,
  PRESEND_CHAT_TYPES,
  PRESEND_DEFAULT_TIMEOUT_MS,
  PRESEND_MESSAGE_TYPES,
  type CreatePresendRuleRequest,
  type PresendRuleView,
  type UpdatePresendRuleRequest,
} from '@parley/protocol';
import type { Clock } from '../../../kernel/clock.js';
import { AppError } from '../../../kernel/errors.js';
import type { OutboundSender } from '../../outbound/ports.js';
import { newRuleSecret } from '../service.js';
import type { PresendRule, PresendRulesRepository } from './ports.js';
import type { PresendRulesCache } from './rules-cache.js';

export function presendView(rule: PresendRule): PresendRuleView {
  return {
    name: rule.name,
    url: rule.url,
    timeout_ms: rule.timeoutMs,
    on_failure: rule.onFailure,
    chat_types: rule.chatTypes,
    message_types: rule.messageTypes,
    secret: rule.secret,
  };
}

const notFound = (name: string) => new AppError('service_resource_not_found', { resource: `pre-send rule ${name}` });

export class PresendService {
  constructor(
    private readonly repo: PresendRulesRepository,
    private readonly cache: Pick<PresendRulesCache, 'changed'>,
    private readonly outbound: Pick<OutboundSender, 'assertAllowedUrl'>,
    private readonly clock: Clock,
  ) {}

  async list(appId: string): Promise<PresendRuleView[]> {
    return (await this.repo.listPresendRules(appId)).map(presendView);
  }

  async get(appId: string, name: string): Promise<PresendRuleView> {
    const rule = await this.repo.getPresendRule(appId, name);
    if (!rule) throw notFound(name);
    return presendView(rule);
  }

  async create(appId: string, body: CreatePresendRuleRequest): Promise<PresendRuleView> {
    await this.outbound.assertAllowedUrl(body.url);
    const result = await this.repo.createPresendRule(
      {
        appId,
        name: body.name,
        url: body.url,
        timeoutMs: body.timeout_ms ?? PRESEND_DEFAULT_TIMEOUT_MS,
        onFailure: body.on_failure ?? 'allow',
        chatTypes: body.chat_types ?? [...PRESEND_CHAT_TYPES],
        messageTypes: body.message_types ?? [...PRESEND_MESSAGE_TYPES],
        secret: newRuleSecret(),
      },
      this.clock.now(),
    );
    if (!result.ok) {
      if (result.reason === 'duplicate_name') throw new AppError('conflict', { resource: 'pre-send rule', detail: body.name });
      throw new AppError('callback_rule_limit', { max: MAX_PRESEND_RULES });
    }
    await this.cache.changed(appId);
    return presendView(result.rule);
  }

  async update(appId: string, name: string, body: UpdatePresendRuleRequest): Promise<PresendRuleView> {
    if (body.url !== undefined) await this.outbound.assertAllowedUrl(body.url);
    const patch = { url: body.url, timeoutMs: body.timeout_ms, onFailure: body.on_failure, chatTypes: body.chat_types, messageTypes: body.message_types };
    const rule = await this.repo.updatePresendRule(appId, name, patch, this.clock.now());
    if (!rule) throw notFound(name);
    await this.cache.changed(appId);
    return presendView(rule);
  }

  async rotateSecret(appId: string, name: string): Promise<PresendRuleView> {
    const rule = await this.repo.updatePresendRule(appId, name, { secret: newRuleSecret() }, this.clock.now());
    if (!rule) throw notFound(name);
    await this.cache.changed(appId);
    return presendView(rule);
  }

  /** Deletes the rule; answers it as it was. */
  async delete(appId: string, name: string): Promise<PresendRuleView> {
    const rule = await this.repo.getPresendRule(appId, name);
    if (!rule || !(await this.repo.deletePresendRule(appId, name))) throw notFound(name);
    await this.cache.changed(appId);
    return presendView(rule);
  }
}
