import type { Migration } from '../../types.js';
import { accounts } from './001-accounts.js';
import { jobs } from './002-jobs.js';
import { channel } from './010-channel.js';
import { im } from './020-im.js';
import { callbacks } from './030-callbacks.js';
import { conversationEpoch } from './040-conversation-epoch.js';
import { mediaRetention } from './050-media-retention.js';
import { callbackStoreSize } from './060-callback-store-size.js';
import { associationNames } from './070-association-names.js';
import { conversationCustomer } from './071-conversation-customer.js';
import { imAdmin } from './072-im-admin.js';
import { callbackResendOutcome } from './073-callback-resend-outcome.js';
import { instances } from './074-instances.js';
import { imPendingFanout } from './075-im-pending-fanout.js';
import { foreignKeyIndexes } from './076-foreign-key-indexes.js';
import { imLiveReceivers } from './077-im-live-receivers.js';
import { presendRules } from './103-presend-rules.js';
import { callbackDeliveries } from './104-callback-deliveries.js';

/** SQLite migrations, in order. Append; never edit a released one. */
export const sqliteMigrations: readonly Migration[] = [accounts, jobs, channel, im, callbacks, conversationEpoch, mediaRetention, callbackStoreSize, associationNames, conversationCustomer, imAdmin, callbackResendOutcome, instances, imPendingFanout, foreignKeyIndexes, imLiveReceivers, presendRules, callbackDeliveries];
