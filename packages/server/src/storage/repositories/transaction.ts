/**
 * The transaction object of the unit of work (storage/unit-of-work.ts): every module's writes of
 * one transaction, and its jobs. Each module declares the part it uses (`ImTransaction`,
 * `ChannelTransaction`, `CallbacksTransaction`, `AccountsTransaction`); this is all of them over
 * one Kysely transaction. A part is built the first time a transaction asks for it.
 */
import type { Kysely } from 'kysely';
import type { AccountsTransaction, AccountsWrites } from '../../modules/accounts/ports.js';
import type { CallbacksTransaction } from '../../modules/callbacks/ports.js';
import type { ChannelTransaction, ChannelWrites } from '../../modules/channel/transaction.js';
import type { ImFileWrites } from '../../modules/im/files.js';
import type { ImGroupWrites, ImMessageWrites, ImTransaction } from '../../modules/im/ports.js';
import type { ImContactWrites } from '../../modules/im/sdk-ports.js';
import type { TransactionJobs } from '../../modules/jobs/ports.js';
import type { OperationsTransaction, OperatorEventWrites } from '../../modules/operations/ports.js';
import type { Database } from '../schema.js';
import type { TransactionContext } from '../unit-of-work.js';
import { accountsWrites } from './accounts-admin.js';
import { kyselyRecordStoreRepository } from './callbacks-store.js';
import { agentLoads, lockAgent, moveConversation, requeueAgentConversations } from './channel-agent-claims.js';
import type { ArrivalTransaction } from '../../modules/channel/arrival-store.js';
import { storeAgentReply } from './channel-conversations.js';
import { recordDeliveryAttempt, requeueDelivery } from './channel-deliveries.js';
import { inviteRating, storeEvent } from './channel-events.js';
import { kyselyImContactWrites } from './imContacts.js';
import { kyselyImGroupWrites } from './imGroups.js';
import { operatorEventWrites } from './operations.js';

export type StorageTransaction = ImTransaction & ChannelTransaction & CallbacksTransaction & AccountsTransaction & OperationsTransaction;

export interface TransactionParts {
  /** The jobs of a transaction (the job queue's `inTransaction`). */
  jobs: (trx: Kysely<Database>) => TransactionJobs;
  /** The IM message writes of a transaction (imMessages.ts, over its compiled statements). */
  im: (trx: Kysely<Database>) => ImMessageWrites;
  /** The chat-file writes of a transaction (im-files.ts, with the engine's quota lock). */
  files: (trx: Kysely<Database>) => ImFileWrites;
  /** The arrival steps of a transaction (channel-arrivals.ts, with the known customers' memory). */
  arrivals: (ctx: TransactionContext) => ArrivalTransaction;
}

function channelWrites(ctx: TransactionContext, arrivals: TransactionParts['arrivals']): ChannelWrites {
  const { trx } = ctx;
  let steps: ArrivalTransaction | undefined;
  return {
    get arrivals() {
      return (steps ??= arrivals(ctx));
    },
    assignment: {
      agentLoads: (queueId) => agentLoads(trx, queueId),
      lockAgent: (agentId) => lockAgent(trx, agentId),
      move: (id, from, to, now) => moveConversation(trx, id, from, to, now),
    },
    storeAgentReply: (reply) => storeAgentReply(trx, reply),
    requeueAgent: (agentId, now) => requeueAgentConversations(trx, agentId, now),
    storeEvent: (row) => storeEvent(trx, row),
    inviteRating: (conversationId, now) => inviteRating(trx, conversationId, now),
    requeueDelivery: (id, now) => requeueDelivery(trx, id, now),
    recordAttempt: (id, attempt, next, now) => recordDeliveryAttempt(trx, id, attempt, next, now),
  };
}

/** Builds the transaction object over each transaction. */
export function storageTransaction(parts: TransactionParts): (ctx: TransactionContext) => StorageTransaction {
  return (ctx) => {
    let jobs: TransactionJobs | undefined;
    let im: ImMessageWrites | undefined;
    let contacts: ImContactWrites | undefined;
    let groups: ImGroupWrites | undefined;
    let files: ImFileWrites | undefined;
    let channel: ChannelWrites | undefined;
    let callbacks: CallbacksTransaction['callbacks'] | undefined;
    let accounts: AccountsWrites | undefined;
    let operations: OperatorEventWrites | undefined;
    return {
      get jobs() {
        return (jobs ??= parts.jobs(ctx.trx));
      },
      get im() {
        return (im ??= parts.im(ctx.trx));
      },
      get contacts() {
        return (contacts ??= kyselyImContactWrites(ctx.trx));
      },
      get groups() {
        return (groups ??= kyselyImGroupWrites(ctx.trx));
      },
      get files() {
        return (files ??= parts.files(ctx.trx));
      },
      get channel() {
        return (channel ??= channelWrites(ctx, parts.arrivals));
      },
      get callbacks() {
        return (callbacks ??= kyselyRecordStoreRepository(ctx.trx));
      },
      get accounts() {
        return (accounts ??= accountsWrites(ctx.trx));
      },
      get operations() {
        return (operations ??= operatorEventWrites(ctx.trx));
      },
    };
  };
}
