/** Callback rules of the callbacks port: their rows, sealed secrets, the slot of each, and the ban state they carry. */
import type { Kysely, Selectable, Updateable } from 'kysely';
import { MAX_CALLBACK_RULES } from '@parley/protocol';
import type { SecretBox } from '../../kernel/secret-box.js';
import { overlapOf } from '../../kernel/secret-overlap.js';
import { parseBanState, type BanState } from '../../modules/callbacks/ban.js';
import type { CallbackRule, CallbacksRepository, CreateRuleResult, NewRule, RuleFilters } from '../../modules/callbacks/ports.js';
import type { CallbackRulesTable } from '../tables/callbacks.js';
import { claimRuleSlot } from './rule-slots.js';
import type { Database } from '../schema.js';

export type RulesRepository = Pick<
  CallbacksRepository,
  'listRules' | 'getRule' | 'allRuleIds' | 'getRuleById' | 'createRule' | 'updateRule' | 'deleteRule' | 'saveBanState'
>;

type ToRule = (row: Selectable<CallbackRulesTable>) => CallbackRule;

/**
 * Rule secrets are stored sealed (AES-256-GCM with the instance key, as REST Client Secrets are).
 * A value that does not open is one stored before sealing was introduced: it is used as it is.
 */
function openSecret(box: SecretBox, stored: string): string {
  if (!stored.startsWith('v1.')) return stored;
  try {
    return box.open(stored);
  } catch {
    return stored;
  }
}

const ruleOf =
  (box: SecretBox): ToRule =>
  (row) => ({
    id: row.id,
    appId: row.app_id,
    name: row.name,
    url: row.url,
    enabled: row.enabled === 1,
    eventTypes: JSON.parse(row.event_types) as RuleFilters['eventTypes'],
    chatTypes: JSON.parse(row.chat_types) as RuleFilters['chatTypes'],
    messageTypes: JSON.parse(row.message_types) as RuleFilters['messageTypes'],
    sources: JSON.parse(row.sources) as RuleFilters['sources'],
    secret: openSecret(box, row.secret),
    previousSecret: overlapOf(row.previous_secret === null ? null : openSecret(box, row.previous_secret), row.previous_secret_until),
    redrive: row.redrive === 1,
    ban: parseBanState(JSON.parse(row.ban_state)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

const banColumns = (state: BanState) => ({
  status: state.status,
  ban_count: state.banCount,
  banned_until: state.bannedUntil,
  ban_state: JSON.stringify(state),
});

/** Takes the lowest free slot (rule-slots.ts). */
async function createInFreeSlot(db: Kysely<Database>, secrets: SecretBox, toRule: ToRule, input: NewRule, now: number): Promise<CreateRuleResult> {
  return claimRuleSlot(
    MAX_CALLBACK_RULES,
    input.name,
    () => db.selectFrom('callback_rules').select(['slot', 'name']).where('app_id', '=', input.appId).execute(),
    async (slot) => {
      const row = await db
        .insertInto('callback_rules')
        .values({
          app_id: input.appId,
          slot,
          name: input.name,
          url: input.url,
          enabled: input.enabled ? 1 : 0,
          event_types: JSON.stringify(input.eventTypes),
          chat_types: JSON.stringify(input.chatTypes),
          message_types: JSON.stringify(input.messageTypes),
          sources: JSON.stringify(input.sources),
          secret: secrets.seal(input.secret),
          redrive: input.redrive ? 1 : 0,
          banned_until: null,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRule(row);
    },
  );
}

export function kyselyRulesRepository(db: Kysely<Database>, secrets: SecretBox): RulesRepository {
  const toRule = ruleOf(secrets);
  return {
    async listRules(appId, conn = db) {
      const rows = await conn.selectFrom('callback_rules').selectAll().where('app_id', '=', appId).orderBy('id').execute();
      return rows.map(toRule);
    },
    async getRule(appId, name) {
      const row = await db.selectFrom('callback_rules').selectAll().where('app_id', '=', appId).where('name', '=', name).executeTakeFirst();
      return row && toRule(row);
    },
    async allRuleIds() {
      return (await db.selectFrom('callback_rules').select('id').orderBy('id').execute()).map((r) => r.id);
    },
    async getRuleById(id) {
      const row = await db.selectFrom('callback_rules').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRule(row);
    },
    createRule: (input, now) => createInFreeSlot(db, secrets, toRule, input, now),
    async updateRule(appId, name, patch, now) {
      const set: Updateable<CallbackRulesTable> = { updated_at: now };
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.enabled !== undefined) set.enabled = patch.enabled ? 1 : 0;
      if (patch.secret !== undefined) set.secret = secrets.seal(patch.secret);
      if (patch.previousSecret !== undefined) {
        set.previous_secret = patch.previousSecret ? secrets.seal(patch.previousSecret.previous) : null;
        set.previous_secret_until = patch.previousSecret?.until ?? null;
      }
      if (patch.redrive !== undefined) set.redrive = patch.redrive ? 1 : 0;
      if (patch.eventTypes) set.event_types = JSON.stringify(patch.eventTypes);
      if (patch.chatTypes) set.chat_types = JSON.stringify(patch.chatTypes);
      if (patch.messageTypes) set.message_types = JSON.stringify(patch.messageTypes);
      if (patch.sources) set.sources = JSON.stringify(patch.sources);
      const row = await db
        .updateTable('callback_rules')
        .set(set)
        .where('app_id', '=', appId)
        .where('name', '=', name)
        .returningAll()
        .executeTakeFirst();
      return row && toRule(row);
    },
    async deleteRule(appId, name) {
      const result = await db.deleteFrom('callback_rules').where('app_id', '=', appId).where('name', '=', name).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async saveBanState(ruleId, state, now) {
      await db.updateTable('callback_rules').set({ ...banColumns(state), updated_at: now }).where('id', '=', ruleId).execute();
    },
  };
}
