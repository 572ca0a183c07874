import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TenantParams, type ChannelEvent } from '@parley/protocol';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { assertTenantAccess, type AccountsService } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { requestToken } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { SECURITY_HEADERS } from '../../pipeline.js';

const HEARTBEAT_MS = 15_000;

/**
 * Live events for the agent workspace, as server-sent events. The console's EventSource sends
 * its session cookie; other clients, which cannot set headers either, may send `?access_token=`. Admins see every event of the tenant; an
 * agent sees events of conversations assigned to them or waiting in their skill groups.
 */
export const channelEventRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule; accounts: AccountsService }> = async (app, { channel, accounts }) => {
  // Open streams never finish on their own: end them before the server waits for connections.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  app.get(
    '/api/tenants/:tenantId/events',
    {
      config: { public: true },
      schema: {
        tags: ['conversations'],
        summary: 'Server-sent events: new_conversation, new_message, assignment, delivery_status, agent_status',
        description: 'A `text/event-stream`: first `event: ready`, then one event per change, each `data` a JSON object with `type`, `tenantId`, `conversationId`, `queueId`, `agentId` (`agent_status`: an agent\'s new `status`, with `conversationId` and `queueId` null). Clients that cannot set headers (EventSource) send the session cookie or `?access_token=`.',
        security: API_BEARER,
        params: TenantParams,
        querystring: Type.Object({ access_token: Type.Optional(Type.String({ maxLength: 512, description: 'The bearer token, for clients that cannot send headers' })) }),
        response: {
          200: {
            description: 'The event stream',
            content: {
              'text/event-stream': {
                schema: Type.String(),
                example: 'event: new_message\ndata: {"type":"new_message","tenantId":1,"conversationId":12,"queueId":2,"agentId":3,"msg_id":"shop-msg-1001","direction":"customer"}\n\n',
              },
            },
          },
          ...apiErrors(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const token = requestToken(request) ?? request.query.access_token;
      const principal = token ? await accounts.authenticate(token) : undefined;
      if (!principal) throw new AppError('unauthorized');
      const { tenantId } = request.params;
      assertTenantAccess(principal, tenantId, ['admin', 'agent']);
      await accounts.requireTenant(tenantId);
      const queues = new Set(principal.role === 'agent' ? await channel.directory.queueIdsOfAgent(principal.userId) : []);
      const wants = (event: ChannelEvent) =>
        principal.role !== 'agent' || event.agentId === principal.userId || (event.type !== 'agent_status' && event.agentId === null && queues.has(event.queueId));

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': String(request.id),
        ...SECURITY_HEADERS,
      });
      res.write('retry: 3000\n\nevent: ready\ndata: {}\n\n');
      let seq = 0;
      const unsubscribe = channel.events.subscribe(tenantId, (event) => {
        if (!wants(event)) return;
        res.write(`id: ${++seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      });
      const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      const stop = () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(end);
      };
      const end = () => {
        stop();
        res.end();
      };
      open.add(end);
      request.raw.on('close', stop);
      res.on('close', stop);
    },
  );
};
