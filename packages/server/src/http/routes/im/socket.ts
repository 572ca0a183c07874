/**
 * The SDK socket (contract 4.3): `GET /{org}/{app}/ws?access_token=<user token>`, JSON frames.
 *
 * A socket first receives the messages stored while its user was offline, then counts as online.
 * Frames of one socket are handled one at a time, in order, so acks and msg_ids follow the order
 * the client sent. A bad frame gets an `error` frame and the socket stays open. The server pings
 * every heartbeat interval and closes a socket that did not answer the previous ping.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IM_LIMITS, type ImChatType, type ImClientFrame, type ImEditFrame, type ImMessageFrame, type ImRecallFrame, type ImServerFrame } from '@parley/protocol';
import { Type } from 'typebox';
import type { WebSocket, RawData } from 'ws';
import { AppError, isAppError } from '../../../kernel/errors.js';
import { uuid } from '../../../kernel/ids.js';
import { inspectJson } from '../../../kernel/input-checks.js';
import { normaliseBody } from '../../../modules/im/bodies.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { ImApp } from '../../../modules/im/ports.js';
import type { ImConnection } from '../../../modules/im/presence.js';
import { messageFrame } from '../../../modules/im/receivers.js';
import type { SocketLease } from '../../../modules/im/socket-limits.js';
import { IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';
import { handleChange } from './socket-changes.js';
import { IM_SOCKET_DESCRIPTION } from './socket-doc.js';
import { chargeSocketChange, chargeSocketSend, type ImLimits } from './send-limits.js';
import { corkUntilTick, handleInOrder, isCorked, OPEN, transportOf } from './socket-io.js';
import { websocketOnly } from './websocket-only.js';

const CHAT_TYPES: readonly ImChatType[] = ['chat', 'groupchat', 'chatroom'];

const bad = (detail: string) => new AppError('illegal_argument', { detail });
const OPS: readonly string[] = ['send', 'join', 'leave', 'ping', 'receipt', 'recall', 'edit'];

function parseFrame(data: RawData): ImClientFrame {
  const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
  if (size > IM_LIMITS.messageBytes) throw new AppError('message_send_error', { detail: 'message is too large' });
  let frame: unknown;
  try {
    frame = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8'));
  } catch {
    throw bad('frame: not valid JSON');
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) throw bad('frame: expected a JSON object');
  // The same text, number and depth rules as every HTTP body (http/input-guard.ts).
  const fault = inspectJson(frame, 'frame');
  if (fault) throw bad(`${fault.field} ${fault.problem}`);
  const op = (frame as { op?: unknown }).op;
  if (!OPS.includes(op as string)) throw bad(`op: unknown operation ${JSON.stringify(op ?? null)}; expected ${OPS.join(', ')}`);
  return frame as ImClientFrame;
}

/** Stored messages handed to a JSON socket at a time, each batch once the socket has taken the last. */
const STORED_BATCH = 100;

/**
 * The socket as presence sees it: every live frame goes through the buffer bound. The JSON socket
 * has no acknowledgement frame, so a stored message counts as acknowledged once it was written to
 * the connection; so does a kept event (pending-events.ts).
 */
function socketConnection(socket: WebSocket, lease: SocketLease, resource: string | undefined): ImConnection {
  const write = (frame: ImServerFrame, done?: (error?: Error) => void) => {
    corkUntilTick(socket);
    socket.send(JSON.stringify(frame), done);
  };
  const open = () => socket.readyState === OPEN && lease.active;
  const id = uuid();
  return {
    id,
    ...(resource === undefined ? {} : { resource }),
    // The bound is checked before each write: frames of one turn leave in one write (corked),
    // so only the first frame of a turn asks; what a turn adds is one commit's frames at most.
    send: (frame: ImServerFrame) => {
      if (socket.readyState !== OPEN || !(isCorked(socket) || lease.admitFrame())) return;
      if ((frame.op !== 'message' && frame.op !== 'recall' && frame.op !== 'edit') || frame.device === undefined) write(frame);
      // The user's own message or recall from another device (never echoed to the device that sent it).
      else if (frame.device !== id) write(withoutDevice(frame));
    },
    room: async () => {
      await lease.writable();
      return open() ? STORED_BATCH : 0;
    },
    sendStored: (messages, acknowledge) => {
      if (!open()) return messages.map((m) => m.msgId);
      const written: string[] = [];
      let left = messages.length;
      for (const message of messages) {
        write(messageFrame(message, true), (error) => {
          if (!error) written.push(message.msgId);
          if (--left === 0 && written.length > 0) acknowledge(written);
        });
      }
      return [];
    },
    // Kept events: as stored messages, acknowledged once written; never written, they stay kept.
    sendKept: (events, acknowledge) => {
      if (!open() || !(isCorked(socket) || lease.admitFrame())) return;
      const written: string[] = [];
      let left = events.length;
      for (const { id: keptId, frame } of events) {
        write(frame.op === 'message' || frame.op === 'recall' || frame.op === 'edit' ? withoutDevice(frame) : frame, (error) => {
          if (!error) written.push(keptId);
          if (--left === 0) acknowledge(written);
        });
      }
    },
    // Closed by the server (the user was deleted): terminated after the grace like any drop.
    close: (code, reason) => lease.drop(code, reason),
  };
}

function withoutDevice(frame: ImMessageFrame | ImRecallFrame | ImEditFrame): ImServerFrame {
  const { device: _device, ...rest } = frame;
  return rest as ImServerFrame;
}

/** Pings every interval; a socket that did not answer the previous ping is terminated. */
function startHeartbeat(socket: WebSocket, heartbeatMs: number): NodeJS.Timeout {
  let alive = true;
  socket.on('pong', () => {
    alive = true;
  });
  const heartbeat = setInterval(() => {
    if (!alive) {
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, heartbeatMs);
  heartbeat.unref();
  return heartbeat;
}

/** A device name the JSON socket may give itself (`resource`), as msync resources are. */
const RESOURCE = /^[A-Za-z0-9_.:@-]{1,64}$/;

const TOKEN_QUERY = Type.Object({
  access_token: Type.Optional(Type.String({ description: 'The user token, for clients that cannot send headers' })),
  resource: Type.Optional(
    Type.String({
      pattern: RESOURCE.source,
      description: "The device's name, kept across its connections: the user's own messages, recalls and edits made on their other devices while it was away reach it on its next connection, and those it made never come back to it",
    }),
  ),
});

/** The socket's `resource` query parameter; 400 when it is not a device name. */
function resourceOf(request: FastifyRequest): string | undefined {
  const value = (request.query as { resource?: unknown } | undefined)?.resource;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !RESOURCE.test(value)) throw bad('resource: expected 1-64 letters, digits or _.:@-');
  return value;
}

export async function imSocketRoutes(app: FastifyInstance, { im, heartbeatMs, limits }: { im: ImModule; heartbeatMs: number; limits: ImLimits }): Promise<void> {
  app.get(
    '/ws',
    {
      websocket: true,
      onRequest: websocketOnly,
      // @fastify/websocket hides its routes from the document: shown again, with the `access_token`
      // the IM context reads itself (http/routes/im/context.ts).
      config: { imAuth: 'user', swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, hide: false, querystring: TOKEN_QUERY }, url }) },
      schema: {
        tags: ['im'],
        summary: 'SDK socket: a WebSocket of JSON frames (user token)',
        description: IM_SOCKET_DESCRIPTION,
        security: IM_TOKEN,
        response: { 101: Type.Null({ description: 'Switching Protocols: the socket is open' }), ...imErrors(401, 403, 404, 426, 429, 503) },
      },
      preValidation: async (request: FastifyRequest) => {
        if (request.imPrincipal?.level !== 'user') throw new AppError('forbidden', { detail: 'the socket requires a user token' });
        resourceOf(request);
        im.sockets.assertRoom(imAppOf(request).id);
      },
    },
    (socket: WebSocket, request: FastifyRequest) => {
      const imApp = imAppOf(request);
      const principal = request.imPrincipal;
      if (principal?.level !== 'user') {
        socket.close(4003, 'user token required');
        return;
      }
      const username = principal.username;
      // Dropped (slow consumer, or replaced by a newer socket of the user): offline at once, so
      // messages are stored for the user rather than pushed at a socket that is going away.
      const lease = im.sockets.admit(imApp.id, username, socket, transportOf(socket), (code) => {
        session.dropped(code);
        im.presence.remove(imApp.id, username, connection);
      });
      if (!lease) return;
      const named = resourceOf(request);
      const connection = socketConnection(socket, lease, named);
      im.presence.add(imApp.id, username, connection);
      // A named device gets the user's own messages sent on their other devices while it was away.
      if (named !== undefined) void im.devices.loggedIn(imApp.id, username, named);
      // Its login (and, when it closes, its logout) for `userStatus` callbacks.
      const session = im.statuses.login(imApp, username, { os: 'other', ip: request.clientAddress, resource: named ?? `json_${connection.id}` });

      const heartbeat = startHeartbeat(socket, heartbeatMs);
      // Stored messages first, then online; drain again for anything stored in between.
      const feed = im.drains.connect(imApp.id, username, connection, lease);
      // Then the events kept while the user was offline.
      void feed.ready.then(() => (socket.readyState === OPEN && lease.active ? im.events.handOver(imApp.id, username, connection) : undefined));

      // Frames are handled one at a time, with back-pressure; handleFrame answers every failure
      // with an error frame itself.
      const charges: Charges = { send: () => chargeSocketSend(limits, imApp.appkey, username), change: () => chargeSocketChange(limits, imApp.appkey, username) };
      handleInOrder(socket, (data) => handleFrame(im, imApp, username, connection, data, charges), () => undefined);
      socket.on('close', () => {
        clearInterval(heartbeat);
        feed.close();
        lease.release();
        im.presence.remove(imApp.id, username, connection);
        void session.closed();
      });
      socket.on('error', () => undefined);
    },
  );
}

/** What a socket's frames are charged: a message to the send limits, a receipt, recall or edit to the user's limit of those. */
interface Charges {
  send: () => Promise<number>;
  change: () => Promise<number>;
}

async function handleFrame(im: ImModule, imApp: ImApp, username: string, connection: ImConnection, data: RawData, charges: Charges): Promise<void> {
  let id: string | undefined;
  try {
    const frame = parseFrame(data);
    id = typeof frame.id === 'string' ? frame.id : undefined;
    switch (frame.op) {
      case 'ping':
        connection.send({ op: 'pong', ...(id ? { id } : {}), timestamp: Date.now() });
        return;
      case 'join':
      case 'leave': {
        if (typeof frame.room !== 'string' || !/^\d{1,20}$/.test(frame.room)) throw bad('room: expected a chat-room id');
        if (frame.op === 'join') await im.groups.addMember(imApp, 'chatroom', frame.room, username, username);
        else await im.groups.removeMember(imApp, 'chatroom', frame.room, username, username);
        connection.send({ op: 'ack', id: id ?? frame.room, timestamp: Date.now() });
        return;
      }
      case 'receipt':
      case 'recall':
      case 'edit': {
        const wait = await charges.change();
        if (wait > 0) throw new AppError('reach_limit', { retryAfter: wait });
        connection.send(await handleChange(im, imApp, username, connection.id, frame, connection.resource ?? `json_${connection.id}`));
        return;
      }
      case 'send': {
        if (typeof frame.id !== 'string' || frame.id.length === 0 || frame.id.length > 64) throw bad('id: expected a string of 1-64 characters');
        if (!CHAT_TYPES.includes(frame.chat_type)) throw bad('chat_type: expected chat, groupchat or chatroom');
        if (typeof frame.to !== 'string' || frame.to.length === 0 || frame.to.length > 128) throw bad('to: expected a user name or a group or chat-room id');
        if (!Array.isArray(frame.bodies) || frame.bodies.length !== 1) throw bad('bodies: expected an array with exactly one body');
        const raw = frame.bodies[0];
        if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('bodies[0]: expected an object');
        const ext = frame.ext ?? {};
        if (typeof ext !== 'object' || ext === null || Array.isArray(ext)) throw bad('ext: expected an object');
        if (frame.online_only !== undefined && typeof frame.online_only !== 'boolean') throw bad('online_only: expected a boolean');
        const { type, ...fields } = raw;
        const body = normaliseBody(type, fields, 'bodies[0]', 'bodies[0].type');
        const [accepted] = await im.messages.send(imApp, {
          from: username,
          chatType: frame.chat_type,
          targets: [frame.to],
          bodies: [body],
          ext,
          source: 'sdk',
          requireMembership: true,
          charge: charges.send,
          device: connection.id,
          resource: connection.resource ?? `json_${connection.id}`,
          ...(frame.online_only ? { onlineOnly: true } : {}),
        });
        connection.send({ op: 'ack', id: frame.id, msg_id: accepted?.msgId ?? '', timestamp: accepted?.timestamp ?? Date.now() });
        return;
      }
    }
  } catch (error) {
    const appError = isAppError(error) ? error : new AppError('internal_error', {}, { cause: error });
    connection.send({ op: 'error', ...(id ? { id } : {}), error: appError.code, error_description: appError.message });
  }
}
