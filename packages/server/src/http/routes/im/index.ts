/**
 * The IM surface as its own encapsulated plugins: `/management/apps` (console system admin) and
 * `/{org}/{app}/...` (app tokens, per-app rate limit and failure counts (context.ts), the SDK socket),
 * and the msync gateway of Easemob's Web SDK at `/ws` and `/websocket` (msync.ts).
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { Clock } from '../../../kernel/clock.js';
import type { AccountsService } from '../../../modules/accounts/service.js';
import type { CallbacksService } from '../../../modules/callbacks/service.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { PresendService } from '../../../modules/callbacks/presend/service.js';
import type { DeliveryLog } from '../../../modules/callbacks/delivery-log.js';
import { imAppAdminRoutes } from './apps-admin.js';
import { imCallbackRoutes } from './callbacks.js';
import { imPresendRoutes } from './presend.js';
import { imOperationsRoutes } from './operations.js';
import type { OperationsService } from '../../../modules/operations/service.js';
import { imChatFileRoutes } from './chatfiles.js';
import { imHistoryRoutes } from './history.js';
import { imConversationRoutes } from './conversations.js';
import { imContactRoutes } from './contacts.js';
import { registerImContext } from './context.js';
import { imCorsRoutes, registerImCors } from './cors.js';
import { imGroupAdminRoutes } from './groups-admin.js';
import { imGroupRoutes } from './groups.js';
import { imGroupUserRoutes } from './groups-user.js';
import { imGroupRoleRoutes } from './group-roles.js';
import { imSharedFileRoutes } from './shared-files.js';
import { imManagementRoutes } from './management.js';
import { imMessageRoutes } from './messages.js';
import { imMessageChangeRoutes } from './message-changes.js';
import { imModerationRoutes } from './moderation.js';
import { msyncRoutes, type MsyncLimits } from './msync.js';
import type { ImLimits } from './send-limits.js';
import { imSocketRoutes } from './socket.js';
import { imUserAttributeRoutes } from './user-attributes.js';
import { imUserAdminRoutes } from './users-admin.js';
import { imUserRoutes } from './users.js';

export interface ImRoutesOptions {
  im: ImModule;
  accounts: AccountsService;
  /** The per-app limit (authenticated requests and socket sends), the per-user send share and the failure counts per IP and app. */
  limits: ImLimits;
  heartbeatMs: number;
  /** Largest IM chat file, bytes (PARLEY_IM_FILE_MAX_MB). */
  fileMaxBytes: number;
  /** The msync gateway's idle sweep reads it. */
  clock: Clock;
  /** The msync gateway's bounds on sockets not logged in yet (and its idle timeout, default MSYNC_IDLE_MS). */
  msync: MsyncLimits;
  /** Callback configuration and exception store routes, when the callbacks module is installed. */
  callbacks?: CallbacksService;
  /** Recent attempts for the console's live tail (with `callbacks`). */
  recentCallbacks?: DeliveryLog;
  /** Pre-send rule routes, when the callbacks module is installed. */
  presend?: PresendService;
  /** The app's operations webhook and operator events (contract 6.7). */
  operations?: OperationsService;
}

/**
 * An error on an open socket. What a client did (a frame over the bound, a bad frame, a reset
 * connection: `ws` has already closed the socket with its code) is logged at debug without a
 * stack, whoever sent it; anything else is the server's and logged as an error.
 */
function onSocketError(error: Error & { code?: string }, socket: WebSocket, request: FastifyRequest): void {
  const client = error.code?.startsWith('WS_ERR_') || error.code === 'ECONNRESET' || error.code === 'EPIPE';
  if (client) request.log.debug({ reason: error.message, code: error.code }, 'websocket closed on a client error');
  else request.log.error({ err: error }, 'websocket handler failed');
  socket.terminate();
}

export async function imRoutes(app: FastifyInstance, options: ImRoutesOptions): Promise<void> {
  const { im } = options;
  await app.register(imManagementRoutes, { accounts: options.accounts, apps: im.apps });
  await app.register(imAppAdminRoutes, { accounts: options.accounts, apps: im.apps });

  // Both socket protocols share one WebSocket server and its frame bound.
  await app.register(websocket, { options: { maxPayload: 64 * 1024 }, errorHandler: onSocketError });
  await app.register(msyncRoutes, { im, clock: options.clock, limits: options.limits, ...options.msync });
  await app.register(
    async (scope) => {
      registerImCors(scope, im.apps, im.origins);
      registerImContext(scope, im.apps, im.groups, options.limits);
      await scope.register(imCorsRoutes, { origins: im.origins });
      await scope.register(imUserRoutes, { im, limits: options.limits });
      await scope.register(imUserAdminRoutes, { im });
      await scope.register(imGroupRoutes, { im });
      await scope.register(imGroupAdminRoutes, { im });
      await scope.register(imGroupUserRoutes, { im });
      await scope.register(imGroupRoleRoutes, { im });
      await scope.register(imModerationRoutes, { im });
      await scope.register(imMessageRoutes, { im });
      await scope.register(imMessageChangeRoutes, { im });
      await scope.register(imChatFileRoutes, { im, limits: options.limits, maxBytes: options.fileMaxBytes });
      await scope.register(imSharedFileRoutes, { im, maxBytes: options.fileMaxBytes });
      await scope.register(imHistoryRoutes, { im });
      await scope.register(imConversationRoutes, { im });
      await scope.register(imUserAttributeRoutes, { im });
      await scope.register(imContactRoutes, { im });
      await scope.register(imSocketRoutes, { im, heartbeatMs: options.heartbeatMs, limits: options.limits });
      if (options.callbacks) await scope.register(imCallbackRoutes, { callbacks: options.callbacks, recent: options.recentCallbacks });
      if (options.presend) await scope.register(imPresendRoutes, { presend: options.presend });
      if (options.operations) await scope.register(imOperationsRoutes, { operations: options.operations });
    },
    { prefix: '/:org/:app' },
  );
}
