/**
 * What runs with the app rather than per request: the periodic purges (one instance runs each),
 * the workers started on onReady, and the order things close in on onClose.
 */
import type { FastifyInstance } from 'fastify';
import type { Modules } from './modules.js';

/** Expired tokens, media, IM messages and operator events swept, the conversation search's index kept, by whichever instance holds the task (config.workers only). */
export function schedulePeriodicTasks({ config, coordination, accounts, im, channel, operations }: Modules): void {
  if (!config.workers) return;
  coordination.singletons.every('accounts.purge-tokens', 10 * 60_000, async () => {
    await accounts.purgeExpiredTokens();
  });
  coordination.singletons.every('im.purge-tokens', 10 * 60_000, async () => {
    await im.apps.purgeExpiredTokens();
  });
  coordination.singletons.every('channel.media-retention', 60 * 60_000, async () => {
    await channel.media.sweepExpired();
  });
  coordination.singletons.every('im.files-retention', 60 * 60_000, async () => {
    await im.files.sweepExpired();
  });
  coordination.singletons.every('im.history-retention', 60 * 60_000, async () => {
    await im.retention.sweep();
  });
  coordination.singletons.every('operations.retention', 60 * 60_000, async () => {
    await operations.sweep();
  });
  if (config.searchIndexIntervalMs > 0) {
    coordination.singletons.every('channel.message-index', config.searchIndexIntervalMs, async () => {
      await channel.indexer.run();
    });
  }
}

/** Starts the workers when the app is ready and closes everything when it closes. */
export function registerLifecycle(app: FastifyInstance, modules: Modules, ownsStorage: boolean): void {
  const { config, presence, callbacks, operations, jobs, coordination, membership, outbound, storage, redis } = modules;
  // Workers start once every module has registered its queues.
  app.addHook('onReady', async () => {
    if (config.allowPrivateCallbacks) {
      app.log.warn(
        'PARLEY_ALLOW_PRIVATE_CALLBACKS is true: callback and push URLs may point at loopback, private, link-local and metadata addresses. Use it for local testing only.',
      );
    }
    await presence?.start();
    membership.start();
    await callbacks.start();
    if (config.workers) jobs.start();
  });
  // Fastify has stopped accepting and finished in-flight requests by now; then let running jobs
  // (deliveries) finish, and close the outbound pools and storage last.
  app.addHook('onClose', async () => {
    await presence?.stop();
    await coordination.close();
    await jobs.stop();
    // After the running jobs finished: the heartbeat says this instance is alive while it drains.
    await membership.stop();
    await callbacks.stop();
    // Events raised by the last bans are written before storage closes.
    await operations.flush();
    await outbound.close();
    if (ownsStorage) await storage.close();
    if (redis) redis.disconnect();
  });
}
