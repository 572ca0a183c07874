/**
 * The msync gateway (contract 6.1): `GET /ws` and `GET /websocket` upgrade to the binary protobuf
 * protocol of Easemob's Web SDK. The app key, user and token travel in the first frame (a
 * PROVISION), so these routes sit outside `/{org}/{app}` and its token check. This file is the
 * WebSocket I/O only; the protocol is modules/im/msync/.
 *
 * Frames of one socket are handled one at a time, in order; reading pauses while too many wait.
 * A frame over the size bound is closed by the WebSocket layer (1009). A socket that sends no
 * frame for longer than the idle timeout (the SDK's heartbeat is an UNREAD at most every ~60 s)
 * is closed with 4408; the sweep reads the injected clock.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { RawData, WebSocket } from 'ws';
import type { Clock } from '../../../kernel/clock.js';
import type { ImModule } from '../../../modules/im/index.js';
import { MsyncConnection } from '../../../modules/im/msync/connection.js';
import { failureKey, noteFailure, type GuardedLimits } from '../../auth-failures.js';
import { imErrors } from '../../openapi.js';
import { corkUntilTick, handleInOrder, OPEN, transportOf } from './socket-io.js';
import { websocketOnly } from './websocket-only.js';

/** No frame for this long closes the socket: above the SDK's longest silence (~60 s). */
export const MSYNC_IDLE_MS = 90_000;
const SWEEP_MS = 1_000;

const toBytes = (data: RawData): Uint8Array =>
  Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : (data as Buffer);

const DESCRIPTION = `Upgrades to the msync protocol of Easemob's Web SDK: binary protobuf frames, the first one a PROVISION
carrying the app key (\`org#app\`), the user name and the user token (\`$t$<token>\`), e.g. (fields shown as JSON)
\`{"command":"PROVISION","guid":{"appKey":"acme#shop","name":"alice"},"auth":"$t$<token>","payload":"<Provision{resource}>"}\`.
No credentials in the URL or headers: the operation itself is public. Configure the SDK with
\`isHttpDNS: false\`, \`url: "ws://HOST:PORT/ws"\`, \`apiUrl: "http://HOST:PORT"\`, \`appKey: "org#app"\`.
Close codes: 1007 a frame that does not decode, 1008 a first frame that is not a provision or a command not taken,
1009 a frame over 64 KiB, 1013 slow consumer or the app at its socket cap, 4206 replaced by a newer login of the user,
4401 provision refused, 4408 idle (no frame for 90 s). See docs/im.md, "Using Easemob's Web SDK with Parley".`;

export interface MsyncRoutesOptions {
  im: ImModule;
  clock: Clock;
  /** The IM failure counts: failed provisions count per IP and app, as failed REST token checks. */
  limits: GuardedLimits;
  /** Default MSYNC_IDLE_MS. */
  idleMs?: number;
}

export async function msyncRoutes(app: FastifyInstance, { im, clock, limits, idleMs = MSYNC_IDLE_MS }: MsyncRoutesOptions): Promise<void> {
  const open = new Set<MsyncConnection>();
  const sweep = setInterval(() => {
    const now = clock.now();
    for (const connection of open) if (now - connection.lastFrameAt > idleMs) connection.idleClose();
  }, SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  const handler = (socket: WebSocket, request: FastifyRequest) => {
    const ip = request.ip;
    const connection = new MsyncConnection(im, clock, {
      send: (bytes) => {
        if (socket.readyState !== OPEN) return;
        corkUntilTick(socket);
        socket.send(bytes);
      },
      close: (code, reason) => im.sockets.closeAndTerminate(socket, code, reason),
      admit: (appId, username, onDrop) => im.sockets.admit(appId, username, socket, transportOf(socket), onDrop),
      failures: {
        blocked: async (appKey) => (await limits.failures.peek(failureKey(ip, appKey))) > 0,
        note: (appKey) => noteFailure(limits, ip, appKey),
      },
    });
    open.add(connection);
    handleInOrder(socket, (data) => connection.handle(toBytes(data)), () => connection.failed());
    socket.on('close', () => {
      open.delete(connection);
      connection.closedBySocket();
    });
    socket.on('error', () => undefined);
  };

  for (const url of ['/ws', '/websocket']) {
    app.get(
      url,
      {
        websocket: true,
        onRequest: websocketOnly,
        config: { swaggerTransform: ({ schema, url: path }) => ({ schema: { ...schema, hide: false }, url: path }) },
        schema: {
          tags: ['im'],
          summary: "msync gateway: Easemob's Web SDK protocol (binary protobuf frames)",
          description: DESCRIPTION,
          // Authentication happens in the first frame, not on the upgrade.
          security: [],
          response: { 101: Type.Null({ description: 'Switching Protocols: the socket is open' }), ...imErrors(404, 426) },
        },
      },
      handler,
    );
  }
}
