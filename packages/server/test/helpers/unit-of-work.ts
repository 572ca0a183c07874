/**
 * The unit of work over a test's storage, as the composition root builds it, for tests that put
 * parts together by hand.
 */
import type { Storage } from '../../src/storage/index.js';
import type { SqlJobQueue } from '../../src/storage/jobs/sql-queue.js';
import { kyselyArrivals } from '../../src/storage/repositories/channel-arrivals.js';
import { kyselyImFileWrites } from '../../src/storage/repositories/im-files.js';
import { kyselyImMessages } from '../../src/storage/repositories/imMessages.js';
import { storageTransaction, type StorageTransaction } from '../../src/storage/repositories/transaction.js';
import type { OpenConversations } from '../../src/storage/sqlite/open-conversations.js';
import { KyselyUnitOfWork } from '../../src/storage/unit-of-work.js';

export function testUnitOfWork(
  storage: Storage,
  jobs: SqlJobQueue,
  options: { openConversations?: OpenConversations } = {},
): { uow: KyselyUnitOfWork<StorageTransaction>; imMessages: ReturnType<typeof kyselyImMessages>['repository'] } {
  const imMessages = kyselyImMessages(storage.db);
  const transaction = storageTransaction({
    jobs: (trx) => jobs.inTransaction(trx),
    im: imMessages.writes,
    files: (trx) => kyselyImFileWrites(trx, { lockApp: storage.capabilities.multiWriter }),
    arrivals: kyselyArrivals(options),
  });
  return { uow: new KyselyUnitOfWork(storage.db, storage.capabilities, transaction), imMessages: imMessages.repository };
}
