/**
 * The msync gateway (contract 6.1): `GET /ws` and `GET /websocket` upgrade to the binary protobuf
 * protocol of Easemob's Web SDK. The app key, user and token travel in the first frame (a
 * PROVISION), so these routes sit outside `/{org}/{app}` and its token check. This file is the
 * WebSocket I/O only; the protocol is modules/im/msync/.
 *
 * Frames of one socket are handled one at a time, in order; reading pauses while too many wait.
 * A frame over the size bound is closed by the WebSocket layer (1009). A socket that sends no
 * frame for longer than the idle timeout (the SDK's heartbeat is an UNREAD at most every ~60 s)
 * is closed with 4408, and so is one not logged in within the provision timeout; the sweep reads
 * the injected clock. Sockets not logged in yet are counted per client address: beyond the cap a
 * new upgrade is refused with 429 before it happens, so idle sockets of one host cannot hold the
 * server's connection slots. Logged-in sockets never count there.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { RawData, WebSocket } from 'ws';
import type { Clock } from '../../../kernel/clock.js';
import type { ImModule } from '../../../modules/im/index.js';
import { MsyncConnection } from '../../../modules/im/msync/connection.js';
import { failureKey, noteFailure, tooMany } from '../../auth-failures.js';
import { imErrors } from '../../openapi.js';
import { chargeSocketChange, chargeSocketSend, type ImLimits } from './send-limits.js';
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
4401 provision refused, 4408 idle (no frame for 90 s, or no provision within the provision timeout, 10 s by default).
Too many sockets not logged in yet from one address: 429 \`reach_limit\` before the upgrade.
See docs/im.md, "Using Easemob's Web SDK with Parley".`;

/** The gateway's own bounds on sockets not logged in yet, and its idle timeout. */
export interface MsyncLimits {
  /** A socket not logged in this long after its upgrade is closed (4408), ms. */
  provisionTimeoutMs: number;
  /** Sockets not logged in yet per client address; more are refused before the upgrade (429). */
  pendingPerIp: number;
  /** Default MSYNC_IDLE_MS. */
  idleMs?: number;
}

export interface MsyncRoutesOptions extends MsyncLimits {
  im: ImModule;
  clock: Clock;
  /** Failed provisions count per IP and app, as failed REST token checks; sends are charged as socket sends. */
  limits: ImLimits;
}

export async function msyncRoutes(app: FastifyInstance, options: MsyncRoutesOptions): Promise<void> {
  const { im, clock, limits, provisionTimeoutMs, pendingPerIp, idleMs = MSYNC_IDLE_MS } = options;
  const open = new Set<MsyncConnection>();
  /** Sockets not logged in yet, per client address. */
  const pending = new Map<string, number>();
  const settle = (ip: string) => {
    const n = (pending.get(ip) ?? 1) - 1;
    if (n > 0) pending.set(ip, n);
    else pending.delete(ip);
  };
  const sweep = setInterval(() => {
    const now = clock.now();
    for (const connection of open) {
      if (connection.loggedIn ? now - connection.lastFrameAt > idleMs : now - connection.openedAt > provisionTimeoutMs) connection.idleClose();
    }
  }, SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  const handler = (socket: WebSocket, request: FastifyRequest) => {
    const ip = request.clientAddress;
    pending.set(ip, (pending.get(ip) ?? 0) + 1);
    let counted = true;
    const loggedInOrGone = () => {
      if (counted) settle(ip);
      counted = false;
    };
    const connection = new MsyncConnection(im, clock, {
      send: (bytes) => {
        if (socket.readyState !== OPEN) return;
        corkUntilTick(socket);
        socket.send(bytes);
      },
      close: (code, reason) => im.sockets.closeAndTerminate(socket, code, reason),
      admit: (appId, username, onDrop) => {
        loggedInOrGone();
        return im.sockets.admit(appId, username, socket, transportOf(socket), onDrop);
      },
      charge: (appKey, username) => chargeSocketSend(limits, appKey, username),
      chargeChange: (appKey, username) => chargeSocketChange(limits, appKey, username),
      ip,
      failures: {
        blocked: async (appKey) => (await limits.failures.peek(failureKey(ip, appKey))) > 0,
        note: (appKey) => noteFailure(limits, ip, appKey),
      },
    });
    open.add(connection);
    handleInOrder(socket, (data) => connection.handle(toBytes(data)), () => connection.failed());
    socket.on('close', () => {
      loggedInOrGone();
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
        preValidation: async (request: FastifyRequest) => {
          if ((pending.get(request.clientAddress) ?? 0) >= pendingPerIp) throw tooMany('reach_limit', Math.max(1, Math.ceil(provisionTimeoutMs / 1000)));
        },
        config: { swaggerTransform: ({ schema, url: path }) => ({ schema: { ...schema, hide: false }, url: path }) },
        schema: {
          tags: ['im'],
          summary: "msync gateway: Easemob's Web SDK protocol (binary protobuf frames)",
          description: DESCRIPTION,
          // Authentication happens in the first frame, not on the upgrade.
          security: [],
          response: { 101: Type.Null({ description: 'Switching Protocols: the socket is open' }), ...imErrors(404, 426, 429) },
        },
      },
      handler,
    );
  }
}
