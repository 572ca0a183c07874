import type { Kysely, Selectable } from 'kysely';
import type { InstanceRecord, InstancesRepository, TakeOver } from '../../modules/cluster/ports.js';
import type { Database } from '../schema.js';
import type { InstancesTable } from '../tables/instances.js';

const toRecord = (row: Selectable<InstancesTable>): InstanceRecord => ({
  id: row.id,
  beat: Number(row.beat),
  heartbeatAt: Number(row.heartbeat_at),
  startedAt: Number(row.started_at),
  inFlight: Number(row.in_flight),
});

export function kyselyInstancesRepository(db: Kysely<Database>): InstancesRepository {
  return {
    async beat(record) {
      const updated = await db
        .updateTable('instances')
        .set({ beat: record.beat, heartbeat_at: record.heartbeatAt, in_flight: record.inFlight })
        .where('id', '=', record.id)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return true;
      await db
        .insertInto('instances')
        .values({ id: record.id, beat: record.beat, heartbeat_at: record.heartbeatAt, started_at: record.startedAt, in_flight: record.inFlight })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      return false;
    },

    async list() {
      const rows = await db.selectFrom('instances').selectAll().orderBy('id').execute();
      return rows.map(toRecord);
    },

    takeOver(id, beat) {
      return db.transaction().execute(async (trx): Promise<TakeOver> => {
        const removed = await trx.deleteFrom('instances').where('id', '=', id).where('beat', '=', beat).executeTakeFirst();
        if (Number(removed.numDeletedRows) === 0) return { taken: false, jobs: 0, queues: [] };
        // Ready again at once, attempts unchanged: the run that died is not counted as a failure.
        const released = await trx.updateTable('jobs').set({ locked_until: null, locked_by: null }).where('locked_by', '=', id).returning('queue').execute();
        return { taken: true, jobs: released.length, queues: [...new Set(released.map((r) => r.queue))] };
      });
    },

    async remove(id) {
      await db.deleteFrom('instances').where('id', '=', id).execute();
    },
  };
}
