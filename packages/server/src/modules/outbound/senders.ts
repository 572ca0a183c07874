/**
 * Which sender carries which requests: the one place where the outbound module trades the worker
 * thread for latency.
 *
 * - `background`: requests no sender of a message waits for (post-send callbacks and their
 *   re-sends, test records, reply pushes, operations webhooks). They go through the worker thread
 *   when `thread` is on (threaded.ts), where their HTTP work competes least with the requests
 *   Parley answers.
 * - `inline`: requests a send waits for before it is answered (pre-send checks). They are sent from
 *   the main thread, by an in-process sender of their own: a check handed to the worker would cross
 *   between the threads twice (the request out, the answer back, each a message serialised and read
 *   back and a turn of the other thread's loop), which costs the main thread about as much as the
 *   exchange itself and adds to the wait of the message.
 *
 * Both are the same UndiciOutboundSender: the same address guard at save and connect time, the
 * same per-request deadline, response cap and budget per key. Each has its own pools, so an origin
 * that receives both kinds gets a pool from each. Without the thread, one in-process sender
 * carries both.
 */
import type { OutboundSender } from './ports.js';
import { UndiciOutboundSender, type UndiciSenderOptions } from './sender.js';
import { ThreadedOutboundSender } from './threaded.js';

export interface OutboundSenders {
  /** Requests nobody waits for inline: on the worker thread when it is on. */
  background: OutboundSender;
  /** Requests a send waits for (pre-send checks): always in process. */
  inline: OutboundSender;
  /** Closes both (once each). */
  close(): Promise<void>;
}

export interface OutboundSendersOptions extends UndiciSenderOptions {
  /** Background requests on a worker thread (PARLEY_OUTBOUND_THREAD). */
  thread: boolean;
  /** Told when the worker thread fails (it is replaced on the next request). */
  onWorkerError?: (error: unknown) => void;
}

export function createOutboundSenders(options: OutboundSendersOptions): OutboundSenders {
  const { thread, onWorkerError, ...sender } = options;
  const inline = new UndiciOutboundSender(sender);
  const background = thread ? new ThreadedOutboundSender(sender, onWorkerError) : inline;
  return sendersOf(background, inline);
}

/** Senders over given ones (a test's sender carries both kinds when it is the same object). */
export function sendersOf(background: OutboundSender, inline: OutboundSender): OutboundSenders {
  return {
    background,
    inline,
    async close() {
      await Promise.all(background === inline ? [background.close()] : [background.close(), inline.close()]);
    },
  };
}
