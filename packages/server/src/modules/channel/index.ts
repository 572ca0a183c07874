/**
 * The REST channel (Area A), assembled from its parts. app.ts calls createChannelModule once;
 * routes and workers reach the services through `app.parley.channel`.
 */
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { SecretBox } from '../../kernel/secret-box.js';
import type { AccountsService } from '../accounts/service.js';
import type { SettingsVersions } from '../coordination/settings-versions.js';
import type { JobQueue } from '../jobs/ports.js';
import type { OperatorAlerts } from '../operations/raise.js';
import type { OutboundSender } from '../outbound/ports.js';
import type { Registry } from 'prom-client';
import { countingEventBus } from './metrics.js';
import { CustomerMessageAcceptor } from './accept.js';
import { Dispatcher } from './assignment.js';
import { AssociationsService } from './associations.js';
import { ConversationsService } from './conversations.js';
import { DeliveriesService } from './deliveries.js';
import { inProcessEventBus, type ChannelEventBus } from './events.js';
import { SendMessageSignature } from './send-message-signature.js';
import { IngestService } from './ingest.js';
import { ChannelMedia, type MediaLimits } from './media.js';
import { mediaDir } from '../media/store.js';
import type {
  AssociationsRepository,
  ConversationsRepository,
  DeliveriesRepository,
  MediaRepository,
  RoutingDirectory,
} from './ports.js';
import { CHANNEL_PUSH_QUEUE, ReplyPusher, type PushJob, type PushSettings } from './push.js';
import type { ChannelTransaction } from './transaction.js';
import type { ConversationEventsRepository } from './event-ports.js';
import { IntegratorEvents } from './integrator-events.js';
import { AgentTyping } from './typing.js';
import { CustomerCalls } from './customer-calls.js';
import { Automation, CHANNEL_AUTOMATION_QUEUE, type AutomationJob } from './automation.js';
import type { AutomationRepository } from './automation-ports.js';
import { AgentTools } from './agent-tools.js';
import type { AgentToolsRepository } from './agent-tools-ports.js';
import { Reports } from './reports.js';
import { Supervisor } from './supervisor.js';
import type { ReportsRepository, SupervisorRepository } from './report-ports.js';
import { MessageIndexer } from './message-indexer.js';
import type { MessageSearchIndex } from './message-search-ports.js';

export interface ChannelModule {
  associations: AssociationsService;
  ingest: IngestService;
  conversations: ConversationsService;
  deliveries: DeliveriesService;
  dispatcher: Dispatcher;
  integrator: IntegratorEvents;
  typing: AgentTyping;
  customerCalls: CustomerCalls;
  automation: Automation;
  tools: AgentTools;
  /** The tenant admin's live view of queues and agents, and the reports. */
  supervisor: Supervisor;
  reports: Reports;
  directory: RoutingDirectory;
  events: ChannelEventBus;
  media: ChannelMedia;
  pusher: ReplyPusher;
  /** The conversation search's background indexer (run periodically by the composition root; tests call `run`). */
  indexer: MessageIndexer;
}

/** The channel's storage ports; app.ts builds the concrete repositories for the engine in use. */
export interface ChannelRepositories {
  associations: AssociationsRepository;
  directory: RoutingDirectory;
  conversations: ConversationsRepository;
  deliveries: DeliveriesRepository;
  conversationEvents: ConversationEventsRepository;
  automation: AutomationRepository;
  agentTools: AgentToolsRepository;
  supervisor: SupervisorRepository;
  reports: ReportsRepository;
  media: MediaRepository;
  messageSearch: MessageSearchIndex;
}

export interface ChannelDeps {
  repositories: ChannelRepositories;
  /** The channel's transactions: customer messages (group-committed), replies, assignment, re-deliveries. */
  uow: UnitOfWork<ChannelTransaction>;
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
  /** Read-your-writes of cached associations across instances; without it, this process only. */
  settings?: SettingsVersions;
  /** Where the channel's counters are registered. */
  metrics?: Registry;
  push?: PushSettings;
  /** Push jobs running at once in this process. */
  pushConcurrency?: number;
  /** Operator events (contract 6.7): a reply push out of retries raises `delivery.exhausted` for the tenant. */
  alerts?: OperatorAlerts<ChannelTransaction>;
  /** Messages the search's indexer reads per run, one transaction (default 250). */
  searchIndexBatch?: number;
}

const DEFAULT_MEDIA_LIMITS: MediaLimits = { quotaBytes: 1024 * 1024 * 1024, retentionMs: 90 * 24 * 3_600_000 };

export function createChannelModule(deps: ChannelDeps): ChannelModule {
  const bus = deps.events ?? inProcessEventBus();
  const events = deps.metrics ? countingEventBus(bus, deps.metrics) : bus;
  const { directory, conversations: conversationsRepo, deliveries: deliveriesRepo } = deps.repositories;
  const associations = new AssociationsService(deps.repositories.associations, directory, deps.accounts, deps.secrets, deps.outbound, deps.clock, deps.settings);
  const integrator = new IntegratorEvents(associations, deps.repositories.conversationEvents, directory, deps.uow, deps.jobs, deps.clock);
  const dispatcher = new Dispatcher(conversationsRepo, deps.uow, directory, events, deps.clock, integrator);
  const pusher = new ReplyPusher(deliveriesRepo, deps.uow, associations, deps.outbound, events, deps.clock, deps.push, deps.alerts);
  // The lease covers one attempt (10 s timeout plus two small writes) with room to spare; it is
  // also the longest a push in flight during a crash waits before another run picks it up (the
  // instances' heartbeat usually releases it within seconds: modules/cluster).
  deps.jobs.work<PushJob>(CHANNEL_PUSH_QUEUE, pusher.handle, { concurrency: deps.pushConcurrency ?? 32, leaseMs: 30_000 });
  const conversations = new ConversationsService(conversationsRepo, deps.uow, directory, dispatcher, events, deps.jobs, deps.clock, integrator);
  const signature = new SendMessageSignature(associations, deps.clock);
  const automation = new Automation(deps.repositories.automation, conversationsRepo, deps.repositories.conversationEvents, directory, deps.uow, deps.jobs, dispatcher, integrator, events, deps.clock);
  deps.jobs.work<AutomationJob>(CHANNEL_AUTOMATION_QUEUE, automation.handle, { concurrency: 2, leaseMs: 60_000 });
  return {
    associations,
    ingest: new IngestService(signature, new CustomerMessageAcceptor(deps.uow), events, deps.clock, integrator, automation),
    conversations,
    typing: new AgentTyping(conversations, integrator, deps.clock),
    automation,
    tools: new AgentTools(deps.repositories.agentTools, conversations, deps.clock),
    supervisor: new Supervisor(deps.repositories.supervisor, deps.clock),
    reports: new Reports(deps.repositories.reports, directory),
    customerCalls: new CustomerCalls(signature, deps.repositories.conversationEvents, conversationsRepo, integrator, events, deps.clock),
    deliveries: new DeliveriesService(deliveriesRepo, deps.uow, associations, deps.jobs, events, deps.clock),
    dispatcher,
    integrator,
    directory,
    events,
    media: new ChannelMedia(deps.repositories.media, mediaDir(deps.dataDir), deps.publicUrl, deps.clock, deps.media ?? DEFAULT_MEDIA_LIMITS),
    pusher,
    // One batch per run: the indexer's share of the single writer and of the CPU stays bounded under
    // a send-message load; a burst past it is found by the search's scan past the watermark.
    indexer: new MessageIndexer(deps.repositories.messageSearch, deps.clock, { batch: deps.searchIndexBatch }),
  };
}
