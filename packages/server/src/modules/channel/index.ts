/**
 * The REST channel (Area A), assembled from its parts. app.ts calls createChannelModule once;
 * routes and workers reach the services through `app.parley.channel`.
 */
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import type { SecretBox } from '../../kernel/secret-box.js';
import { kyselyAssociationsRepository, kyselyRoutingDirectory } from '../../storage/repositories/channel-associations.js';
import { kyselyMediaRepository } from '../../storage/repositories/channel-media.js';
import type { DirectRunner } from '../../storage/precompiled.js';
import { kyselyConversationsRepository } from '../../storage/repositories/channel-conversations.js';
import { kyselyDeliveriesRepository } from '../../storage/repositories/channel-deliveries.js';
import type { Database } from '../../storage/schema.js';
import type { AccountsService } from '../accounts/service.js';
import type { JobQueue } from '../jobs/ports.js';
import type { OutboundSender } from '../outbound/ports.js';
import type { Registry } from 'prom-client';
import { countingEventBus } from './metrics.js';
import { AssociationsService } from './associations.js';
import { ConversationsService } from './conversations.js';
import { DeliveriesService } from './deliveries.js';
import { Dispatcher } from './dispatcher.js';
import { inProcessEventBus, type ChannelEventBus } from './events.js';
import { IngestService } from './ingest.js';
import { MediaStore, type MediaLimits } from './media.js';
import type { RoutingDirectory } from './ports.js';
import { CHANNEL_PUSH_QUEUE, ReplyPusher, type PushJob, type PushSettings } from './push.js';

export interface ChannelModule {
  associations: AssociationsService;
  ingest: IngestService;
  conversations: ConversationsService;
  deliveries: DeliveriesService;
  dispatcher: Dispatcher;
  directory: RoutingDirectory;
  events: ChannelEventBus;
  media: MediaStore;
  pusher: ReplyPusher;
}

export interface ChannelDeps {
  db: Kysely<Database>;
  clock: Clock;
  accounts: AccountsService;
  jobs: JobQueue;
  outbound: OutboundSender;
  secrets: SecretBox;
  dataDir: string;
  publicUrl: string;
  /** Per-tenant media quota and retention (defaults: 1 GiB, 90 days). */
  media?: MediaLimits;
  events?: ChannelEventBus;
  /** Where the channel's counters are registered. */
  metrics?: Registry;
  push?: PushSettings;
  /** Push jobs running at once in this process. */
  pushConcurrency?: number;
  /**
   * This process is the database's only writer (SQLite): the send-message path may keep known
   * customers' open conversations in memory (storage/repositories/open-conversations.ts).
   */
  singleWriter?: boolean;
  /** SQLite: the storage's direct runner, for the send-message group commit (storage/precompiled.ts). */
  direct?: DirectRunner | undefined;
}

const DEFAULT_MEDIA_LIMITS: MediaLimits = { quotaBytes: 1024 * 1024 * 1024, retentionMs: 90 * 24 * 3_600_000 };

export function createChannelModule(deps: ChannelDeps): ChannelModule {
  const bus = deps.events ?? inProcessEventBus();
  const events = deps.metrics ? countingEventBus(bus, deps.metrics) : bus;
  const directory = kyselyRoutingDirectory(deps.db);
  const conversationsRepo = kyselyConversationsRepository(deps.db, { rememberOpenConversations: deps.singleWriter === true, direct: deps.direct });
  const deliveriesRepo = kyselyDeliveriesRepository(deps.db);
  const associations = new AssociationsService(kyselyAssociationsRepository(deps.db), directory, deps.accounts, deps.secrets, deps.outbound, deps.clock);
  const dispatcher = new Dispatcher(conversationsRepo, directory, events, deps.clock);
  const pusher = new ReplyPusher(deliveriesRepo, associations, deps.outbound, events, deps.clock, deps.push);
  // The lease covers one attempt (10 s timeout plus two small writes) with room to spare; it is
  // also how long a push in flight during a crash waits before another run picks it up.
  deps.jobs.work<PushJob>(CHANNEL_PUSH_QUEUE, pusher.handle, { concurrency: deps.pushConcurrency ?? 8, leaseMs: 30_000 });
  return {
    associations,
    ingest: new IngestService(associations, conversationsRepo, events, deps.clock),
    conversations: new ConversationsService(conversationsRepo, directory, dispatcher, events, deps.jobs, deps.clock),
    deliveries: new DeliveriesService(deliveriesRepo, associations, deps.jobs, events, deps.clock),
    dispatcher,
    directory,
    events,
    media: new MediaStore(kyselyMediaRepository(deps.db, { lockTenant: deps.singleWriter !== true }), path.join(deps.dataDir, 'media'), deps.publicUrl, deps.clock, deps.media ?? DEFAULT_MEDIA_LIMITS),
    pusher,
  };
}
