/**
 * WebSocket I/O shared by the two IM socket protocols (the JSON socket and the msync gateway):
 * writes of one turn leave in one system call, frames are handled one at a time with TCP
 * back-pressure, and the TCP socket the bounds in modules/im/socket-limits.ts watch.
 */
import type { RawData, WebSocket } from 'ws';
import type { SocketTransport } from '../../../modules/im/socket-limits.js';

/** `WebSocket.OPEN`. */
export const OPEN = 1;
/** Frames of one socket read but not handled yet beyond which reading pauses (TCP back-pressure). */
const MAX_PENDING_FRAMES = 32;

const corked = new WeakSet<WebSocket>();

/**
 * Frames sent to one socket in the same turn (a group commit delivers many messages at once) leave
 * in one write instead of one system call each: the TCP socket is corked until the pending
 * callbacks of this turn have run.
 */
export function corkUntilTick(socket: WebSocket): void {
  const tcp = transportOf(socket);
  if (!tcp || corked.has(socket)) return;
  corked.add(socket);
  tcp.cork();
  process.nextTick(() => {
    corked.delete(socket);
    tcp.uncork();
  });
}

type Tcp = SocketTransport & { cork(): void; uncork(): void };

/** Whether the socket is corked in this turn (a frame was already written to it). */
export const isCorked = (socket: WebSocket): boolean => corked.has(socket);

/** The TCP socket under a WebSocket (`ws` keeps it in `_socket`). */
export const transportOf = (socket: WebSocket): Tcp | undefined => (socket as WebSocket & { _socket?: Tcp })._socket;

/**
 * Handles the socket's frames one at a time, in order. A client that sends faster than they are
 * handled stops being read from once MAX_PENDING_FRAMES wait (its TCP window closes) and is read
 * again when half of them are done. `onError` gets what `handle` threw; the next frame is handled.
 */
export function handleInOrder(socket: WebSocket, handle: (data: RawData) => Promise<void>, onError: (error: unknown) => void): void {
  let queue: Promise<void> = Promise.resolve();
  let pending = 0;
  socket.on('message', (data: RawData) => {
    if (++pending >= MAX_PENDING_FRAMES) socket.pause();
    queue = queue
      .then(() => handle(data))
      .catch(onError)
      .finally(() => {
        if (--pending === MAX_PENDING_FRAMES / 2) socket.resume();
      });
  });
}
