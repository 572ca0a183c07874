/** Notes, labels and canned replies (modules/channel/agent-tools-ports.ts). */
import type { Kysely, Selectable } from 'kysely';
import type { AgentToolsRepository, CannedReply } from '../../modules/channel/agent-tools-ports.js';
import type { CannedRepliesTable } from '../tables/channel.js';
import type { Database } from '../schema.js';

const toCanned = (row: Selectable<CannedRepliesTable>): CannedReply => ({
  id: row.id,
  tenantId: row.tenant_id,
  ownerId: Number(row.owner_id),
  shortcut: row.shortcut,
  text: row.text,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

export function kyselyAgentToolsRepository(db: Kysely<Database>): AgentToolsRepository {
  return {
    async addNote(tenantId, conversationId, authorId, text, now) {
      const row = await db
        .insertInto('conversation_notes')
        .values({ tenant_id: tenantId, conversation_id: conversationId, author_id: authorId, text, created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async notes(conversationId) {
      const rows = await db
        .selectFrom('conversation_notes as n')
        .leftJoin('users as u', 'u.id', 'n.author_id')
        .select(['n.id', 'n.text', 'n.created_at', 'n.author_id', 'u.nickname'])
        .where('n.conversation_id', '=', conversationId)
        .orderBy('n.id')
        .execute();
      return rows.map((r) => ({ id: r.id, text: r.text, createdAt: Number(r.created_at), author: r.author_id === null ? null : { id: r.author_id, nickname: r.nickname ?? '' } }));
    },
    async setLabels(tenantId, conversationId, labels) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('conversation_labels').where('conversation_id', '=', conversationId).execute();
        if (labels.length) await trx.insertInto('conversation_labels').values(labels.map((label) => ({ conversation_id: conversationId, tenant_id: tenantId, label }))).execute();
      });
      return [...labels].sort();
    },
    async createCanned(reply) {
      const row = await db
        .insertInto('canned_replies')
        .values({ tenant_id: reply.tenantId, owner_id: reply.ownerId, shortcut: reply.shortcut, text: reply.text, created_at: reply.createdAt, updated_at: reply.updatedAt })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toCanned(row);
    },
    async listCanned(tenantId, agentId) {
      const rows = await db.selectFrom('canned_replies').selectAll().where('tenant_id', '=', tenantId).where('owner_id', 'in', [0, agentId]).orderBy('shortcut').orderBy('owner_id').execute();
      return rows.map(toCanned);
    },
    async getCanned(tenantId, id) {
      const row = await db.selectFrom('canned_replies').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toCanned(row);
    },
    async updateCanned(tenantId, id, patch, now) {
      const row = await db
        .updateTable('canned_replies')
        .set({ ...(patch.shortcut !== undefined ? { shortcut: patch.shortcut } : {}), ...(patch.text !== undefined ? { text: patch.text } : {}), updated_at: now })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toCanned(row);
    },
    async deleteCanned(tenantId, id) {
      const result = await db.deleteFrom('canned_replies').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
