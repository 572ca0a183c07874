/** Pre-send callback rules (modules/callbacks/presend/ports.ts): their rows, sealed secrets and slots. */
import type { Kysely, Selectable, Updateable } from 'kysely';
import { MAX_PRESEND_RULES } from '@parley/protocol';
import type { SecretBox } from '../../kernel/secret-box.js';
import type { CreatePresendRuleResult, NewPresendRule, PresendRule, PresendRulesRepository } from '../../modules/callbacks/presend/ports.js';
import type { PresendRulesTable } from '../tables/presend.js';
import { claimRuleSlot } from './rule-slots.js';
import type { Database } from '../schema.js';

type ToRule = (row: Selectable<PresendRulesTable>) => PresendRule;

const ruleOf =
  (box: SecretBox): ToRule =>
  (row) => ({
    id: Number(row.id),
    appId: row.app_id,
    name: row.name,
    url: row.url,
    timeoutMs: Number(row.timeout_ms),
    onFailure: row.on_failure,
    chatTypes: JSON.parse(row.chat_types) as PresendRule['chatTypes'],
    messageTypes: JSON.parse(row.message_types) as PresendRule['messageTypes'],
    secret: box.open(row.secret),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  });

/** Takes the lowest free slot (rule-slots.ts). */
async function createInFreeSlot(db: Kysely<Database>, secrets: SecretBox, toRule: ToRule, input: NewPresendRule, now: number): Promise<CreatePresendRuleResult> {
  return claimRuleSlot(
    MAX_PRESEND_RULES,
    input.name,
    () => db.selectFrom('presend_rules').select(['slot', 'name']).where('app_id', '=', input.appId).execute(),
    async (slot) => {
      const row = await db
        .insertInto('presend_rules')
        .values({
          app_id: input.appId,
          slot,
          name: input.name,
          url: input.url,
          timeout_ms: input.timeoutMs,
          on_failure: input.onFailure,
          chat_types: JSON.stringify(input.chatTypes),
          message_types: JSON.stringify(input.messageTypes),
          secret: secrets.seal(input.secret),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRule(row);
    },
  );
}

export function kyselyPresendRulesRepository(db: Kysely<Database>, secrets: SecretBox): PresendRulesRepository {
  const toRule = ruleOf(secrets);
  return {
    async listPresendRules(appId) {
      const rows = await db.selectFrom('presend_rules').selectAll().where('app_id', '=', appId).orderBy('id').execute();
      return rows.map(toRule);
    },
    async getPresendRule(appId, name) {
      const row = await db.selectFrom('presend_rules').selectAll().where('app_id', '=', appId).where('name', '=', name).executeTakeFirst();
      return row && toRule(row);
    },
    createPresendRule: (input, now) => createInFreeSlot(db, secrets, toRule, input, now),
    async updatePresendRule(appId, name, patch, now) {
      const set: Updateable<PresendRulesTable> = { updated_at: now };
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.timeoutMs !== undefined) set.timeout_ms = patch.timeoutMs;
      if (patch.onFailure !== undefined) set.on_failure = patch.onFailure;
      if (patch.chatTypes) set.chat_types = JSON.stringify(patch.chatTypes);
      if (patch.messageTypes) set.message_types = JSON.stringify(patch.messageTypes);
      if (patch.secret !== undefined) set.secret = secrets.seal(patch.secret);
      const row = await db.updateTable('presend_rules').set(set).where('app_id', '=', appId).where('name', '=', name).returningAll().executeTakeFirst();
      return row && toRule(row);
    },
    async deletePresendRule(appId, name) {
      const result = await db.deleteFrom('presend_rules').where('app_id', '=', appId).where('name', '=', name).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
