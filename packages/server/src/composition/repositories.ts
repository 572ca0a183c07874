/**
 * The concrete repositories of the modules, for the engine `storage` runs on. Part of the
 * composition root: only here (and in app.ts) may storage/repositories/ be imported
 * (scripts/check-imports.mjs); the modules get these as ports.
 */
import type { SecretBox } from '../kernel/secret-box.js';
import type { Storage } from '../storage/index.js';
import { kyselyAccountsRepository } from '../storage/repositories/accounts.js';
import { kyselyCallbacksRepository } from '../storage/repositories/callbacks.js';
import { kyselyArrivalStore } from '../storage/repositories/channel-arrivals.js';
import { kyselyAssociationsRepository, kyselyRoutingDirectory } from '../storage/repositories/channel-associations.js';
import { kyselyConversationsRepository } from '../storage/repositories/channel-conversations.js';
import { kyselyDeliveriesRepository } from '../storage/repositories/channel-deliveries.js';
import { kyselyMediaRepository } from '../storage/repositories/channel-media.js';
import { kyselyImAppsRepository, kyselyImUsersRepository } from '../storage/repositories/imApps.js';
import { kyselyImGroupsRepository } from '../storage/repositories/imGroups.js';
import { kyselyImMessagesRepository } from '../storage/repositories/imMessages.js';
import { OpenConversations } from '../storage/sqlite/open-conversations.js';
import { directRunnerOf } from '../storage/sqlite/direct-runner.js';

/** The accounts repository, built first: bootstrap needs it before the other modules exist. */
export function accountsRepository(storage: Storage) {
  return kyselyAccountsRepository(storage.db);
}

export function storageRepositories(storage: Storage, secrets: SecretBox) {
  const { db } = storage;
  // A single writer (SQLite, whose migration 040 keeps the conversation epoch) may remember known
  // customers' open conversations, and needs no per-tenant lock around a media upload's quota check.
  const singleWriter = !storage.capabilities.multiWriter;
  return {
    callbacks: kyselyCallbacksRepository(db, secrets),
    im: {
      apps: kyselyImAppsRepository(db),
      users: kyselyImUsersRepository(db, storage.capabilities.engine),
      groups: kyselyImGroupsRepository(db, storage.capabilities.engine),
      messages: kyselyImMessagesRepository(db),
    },
    channel: {
      associations: kyselyAssociationsRepository(db),
      directory: kyselyRoutingDirectory(db),
      arrivals: kyselyArrivalStore(db, { openConversations: singleWriter ? new OpenConversations() : undefined, direct: storage.capabilities.directStatements ? directRunnerOf(db) : undefined }),
      conversations: kyselyConversationsRepository(db, { engine: storage.capabilities.engine }),
      deliveries: kyselyDeliveriesRepository(db),
      media: kyselyMediaRepository(db, { lockTenant: !singleWriter }),
    },
  };
}

export type Repositories = ReturnType<typeof storageRepositories>;
