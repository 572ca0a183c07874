/**
 * The concrete repositories of the modules, for the engine `storage` runs on. Part of the
 * composition root: only here (and in app.ts) may storage/repositories/ be imported
 * (scripts/check-imports.mjs); the modules get these as ports.
 */
import type { SecretBox } from '../kernel/secret-box.js';
import type { Storage } from '../storage/index.js';
import { kyselyAccountsRepository } from '../storage/repositories/accounts.js';
import { kyselyCallbacksRepository } from '../storage/repositories/callbacks.js';
import { kyselyPresendRulesRepository } from '../storage/repositories/callbacks-presend.js';
import { kyselyDeliveryLogRepository } from '../storage/repositories/callbacks-deliveries.js';
import { kyselyArrivals } from '../storage/repositories/channel-arrivals.js';
import { kyselyAssociationsRepository, kyselyRoutingDirectory } from '../storage/repositories/channel-associations.js';
import { kyselyConversationsRepository } from '../storage/repositories/channel-conversations.js';
import { kyselyDeliveriesRepository } from '../storage/repositories/channel-deliveries.js';
import { kyselyConversationEventsRepository } from '../storage/repositories/channel-events.js';
import { kyselyAutomationRepository } from '../storage/repositories/channel-automation.js';
import { kyselyAgentToolsRepository } from '../storage/repositories/channel-agent-tools.js';
import { kyselyReportsRepository, kyselySupervisorRepository } from '../storage/repositories/channel-reports.js';
import { kyselyMediaRepository } from '../storage/repositories/channel-media.js';
import { kyselyMessageSearchIndex } from '../storage/repositories/channel-message-search.js';
import { kyselyOperationsRepository } from '../storage/repositories/operations.js';
import { kyselyImFilesRepository, kyselyImFileWrites } from '../storage/repositories/im-files.js';
import { kyselyImHistory } from '../storage/repositories/im-history.js';
import { kyselyImConversations } from '../storage/repositories/im-conversations.js';
import { kyselyImAppsRepository, kyselyImUsersRepository } from '../storage/repositories/imApps.js';
import { kyselyImGroupsRepository } from '../storage/repositories/imGroups.js';
import { kyselyImGroupRolesRepository } from '../storage/repositories/imGroupRoles.js';
import { kyselyImMessages } from '../storage/repositories/imMessages.js';
import { kyselyImOriginsRepository } from '../storage/repositories/imOrigins.js';
import { kyselyImAttributesRepository } from '../storage/repositories/imAttributes.js';
import { kyselyImContactsRepository } from '../storage/repositories/imContacts.js';
import { storageTransaction, type StorageTransaction } from '../storage/repositories/transaction.js';
import { OpenConversations } from '../storage/sqlite/open-conversations.js';
import { withDomainErrors } from '../storage/errors.js';
import type { JobQueueAdapter } from '../storage/jobs/sql-queue.js';
import { KyselyUnitOfWork } from '../storage/unit-of-work.js';

/** The accounts repository, built first: bootstrap needs it before the other modules exist. */
export function accountsRepository(storage: Storage) {
  return withDomainErrors(kyselyAccountsRepository(storage.db));
}

/** The repositories of the modules, and the unit of work whose transactions hold their writes and jobs. */
export function storageRepositories(storage: Storage, secrets: SecretBox, jobs: JobQueueAdapter) {
  const { db } = storage;
  // A single writer (SQLite, whose migration 129 logs the changes of conversations) may remember known
  // customers' open conversations, and needs no per-tenant (per-app) lock around a media upload's quota check.
  const singleWriter = !storage.capabilities.multiWriter;
  const imMessages = kyselyImMessages(db);
  const transaction = storageTransaction({
    jobs: (trx) => jobs.inTransaction(trx),
    im: imMessages.writes,
    files: (trx) => kyselyImFileWrites(trx, { lockApp: !singleWriter }),
    arrivals: kyselyArrivals({ openConversations: singleWriter ? new OpenConversations() : undefined }),
  });
  return {
    uow: new KyselyUnitOfWork<StorageTransaction>(db, storage.capabilities, transaction),
    callbacks: kyselyCallbacksRepository(db, secrets),
    presend: kyselyPresendRulesRepository(db, secrets),
    deliveryLog: kyselyDeliveryLogRepository(db),
    operations: kyselyOperationsRepository(db, secrets),
    im: {
      apps: withDomainErrors(kyselyImAppsRepository(db)),
      users: withDomainErrors(kyselyImUsersRepository(db, storage.capabilities.engine)),
      groups: kyselyImGroupsRepository(db, storage.capabilities.engine),
      groupRoles: kyselyImGroupRolesRepository(db),
      messages: imMessages.repository,
      origins: kyselyImOriginsRepository(db),
      files: kyselyImFilesRepository(db, { lockApp: !singleWriter }),
      history: kyselyImHistory(db, storage.capabilities.engine),
      conversations: kyselyImConversations(db, storage.capabilities.engine),
      attributes: kyselyImAttributesRepository(db),
      contacts: kyselyImContactsRepository(db),
    },
    channel: {
      associations: withDomainErrors(kyselyAssociationsRepository(db)),
      directory: kyselyRoutingDirectory(db),
      conversations: kyselyConversationsRepository(db, { engine: storage.capabilities.engine }),
      deliveries: kyselyDeliveriesRepository(db),
      conversationEvents: kyselyConversationEventsRepository(db),
      automation: kyselyAutomationRepository(db),
      agentTools: withDomainErrors(kyselyAgentToolsRepository(db)),
      supervisor: kyselySupervisorRepository(db),
      reports: kyselyReportsRepository(db),
      media: kyselyMediaRepository(db, { lockTenant: !singleWriter }),
      messageSearch: kyselyMessageSearchIndex(db, storage.capabilities.engine),
    },
  };
}

export type Repositories = ReturnType<typeof storageRepositories>;
