/**
 * The IM surface as its own encapsulated plugins: `/management/apps` (console system admin) and
 * `/{org}/{app}/...` (app tokens, per-app rate limit and failure counts (context.ts), the SDK socket),
 * and the msync gateway of Easemob's Web SDK at `/ws` and `/websocket` (msync.ts).
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../../kernel/clock.js';
import type { AccountsService } from '../../../modules/accounts/service.js';
import type { CallbacksService } from '../../../modules/callbacks/service.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { GuardedLimits } from '../../auth-failures.js';
import type { RecentAttempts } from '../../../modules/callbacks/recent.js';
import { imAppAdminRoutes } from './apps-admin.js';
import { imCallbackRoutes } from './callbacks.js';
import { registerImContext } from './context.js';
import { imGroupAdminRoutes } from './groups-admin.js';
import { imGroupRoutes } from './groups.js';
import { imManagementRoutes } from './management.js';
import { imMessageRoutes } from './messages.js';
import { imModerationRoutes } from './moderation.js';
import { msyncRoutes } from './msync.js';
import { imSocketRoutes } from './socket.js';
import { imUserAdminRoutes } from './users-admin.js';
import { imUserRoutes } from './users.js';

export interface ImRoutesOptions {
  im: ImModule;
  accounts: AccountsService;
  /** The per-app limit (authenticated requests) and the failure counts per IP and app. */
  limits: GuardedLimits;
  heartbeatMs: number;
  /** The msync gateway's idle sweep reads it. */
  clock: Clock;
  /** The msync idle timeout, ms (default msync.ts MSYNC_IDLE_MS). */
  msyncIdleMs?: number;
  /** Callback configuration and exception store routes, when the callbacks module is installed. */
  callbacks?: CallbacksService;
  /** Recent attempts for the console's live tail (with `callbacks`). */
  recentCallbacks?: RecentAttempts;
}

export async function imRoutes(app: FastifyInstance, options: ImRoutesOptions): Promise<void> {
  const { im } = options;
  await app.register(imManagementRoutes, { accounts: options.accounts, apps: im.apps });
  await app.register(imAppAdminRoutes, { accounts: options.accounts, apps: im.apps });

  // Both socket protocols share one WebSocket server and its frame bound.
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(msyncRoutes, { im, clock: options.clock, limits: options.limits, idleMs: options.msyncIdleMs });
  await app.register(
    async (scope) => {
      registerImContext(scope, im.apps, options.limits);
      await scope.register(imUserRoutes, { im, limits: options.limits });
      await scope.register(imUserAdminRoutes, { im });
      await scope.register(imGroupRoutes, { im });
      await scope.register(imGroupAdminRoutes, { im });
      await scope.register(imModerationRoutes, { im });
      await scope.register(imMessageRoutes, { im });
      await scope.register(imSocketRoutes, { im, heartbeatMs: options.heartbeatMs });
      if (options.callbacks) await scope.register(imCallbackRoutes, { callbacks: options.callbacks, recent: options.recentCallbacks });
    },
    { prefix: '/:org/:app' },
  );
}
