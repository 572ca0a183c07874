/**
 * The IM surface as its own encapsulated plugins: `/management/apps` (console system admin) and
 * `/{org}/{app}/...` (app tokens, per-app rate limit, the SDK socket).
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { AccountsService } from '../../../modules/accounts/service.js';
import type { CallbacksService } from '../../../modules/callbacks/service.js';
import type { ImModule } from '../../../modules/im/index.js';
import { registerRateLimit } from '../../plugins/rate-limit.js';
import type { RecentAttempts } from '../../../modules/callbacks/recent.js';
import { imCallbackRoutes } from './callbacks.js';
import { registerImContext } from './context.js';
import { imGroupRoutes } from './groups.js';
import { imManagementRoutes } from './management.js';
import { imMessageRoutes } from './messages.js';
import { imModerationRoutes } from './moderation.js';
import { imSocketRoutes } from './socket.js';
import { imUserRoutes } from './users.js';

export interface ImRoutesOptions {
  im: ImModule;
  accounts: AccountsService;
  redis: Redis | undefined;
  /** Namespace of the per-app counters in Redis. */
  rateLimitNameSpace?: string;
  rateLimitPerSecond: number;
  heartbeatMs: number;
  /** Callback configuration and exception store routes, when the callbacks module is installed. */
  callbacks?: CallbacksService;
  /** Recent attempts for the console's live tail (with `callbacks`). */
  recentCallbacks?: RecentAttempts;
}

export async function imRoutes(app: FastifyInstance, options: ImRoutesOptions): Promise<void> {
  const { im } = options;
  await app.register(imManagementRoutes, { accounts: options.accounts, apps: im.apps });

  await app.register(
    async (scope) => {
      await scope.register(websocket, { options: { maxPayload: 64 * 1024 } });
      await registerRateLimit(scope, {
        max: options.rateLimitPerSecond,
        timeWindowMs: 1000,
        redis: options.redis,
        nameSpace: options.rateLimitNameSpace ?? 'parley-rl-im-',
        keyGenerator: (request) => {
          const p = request.params as { org?: string; app?: string };
          return `${p.org ?? ''}#${p.app ?? ''}`;
        },
      });
      registerImContext(scope, im.apps);
      await scope.register(imUserRoutes, { im });
      await scope.register(imGroupRoutes, { im });
      await scope.register(imModerationRoutes, { im });
      await scope.register(imMessageRoutes, { im });
      await scope.register(imSocketRoutes, { im, heartbeatMs: options.heartbeatMs });
      if (options.callbacks) await scope.register(imCallbackRoutes, { callbacks: options.callbacks, recent: options.recentCallbacks });
    },
    { prefix: '/:org/:app' },
  );
}
