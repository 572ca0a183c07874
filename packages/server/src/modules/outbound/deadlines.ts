/**
 * Per-request deadlines with ONE timer for all requests in flight.
 *
 * `AbortSignal.timeout()` costs a timer, a weak reference and a finalizer per request: at
 * thousands of callbacks a second that is a visible share of the CPU. Requests of one sender
 * nearly always share a timeout, so their deadlines arrive in the order they were set: a FIFO per
 * timeout length, and a single timer armed for the earliest deadline of all. A request that
 * finishes first is only marked done; the timer skips it when its turn comes.
 *
 * Each deadline's signal is a minimal event target rather than an AbortController, whose
 * EventTarget machinery costs several microseconds per request. The sender's dispatch handler
 * (sender.ts) listens to it and aborts its exchange; it has the shape of the part of AbortSignal
 * that undici's own APIs use, so it could also be passed to them as `signal`.
 */

/** The part of AbortSignal that an abortable exchange uses: one 'abort' listener, `aborted`, `reason`. */
export class DeadlineSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> = [];

  addEventListener(type: string, listener: () => void): void {
    if (type === 'abort' && !this.aborted) this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type !== 'abort') return;
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  /** Aborts once: listeners run (once each) with `reason` set. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

interface Entry {
  deadline: number;
  signal: DeadlineSignal;
  done: boolean;
}

/** Entries in deadline order from `head` on; finished ones are dropped from the front. */
interface Fifo {
  items: Entry[];
  head: number;
}

function dropFinished(queue: Fifo): void {
  while (queue.head < queue.items.length && (queue.items[queue.head] as Entry).done) queue.head++;
  // Compact now and then rather than shifting on every removal.
  if (queue.head > 1024 && queue.head * 2 > queue.items.length) {
    queue.items = queue.items.slice(queue.head);
    queue.head = 0;
  }
}

export interface Deadline {
  readonly signal: DeadlineSignal;
  /** The request finished: its deadline no longer applies. */
  clear(): void;
}

export class Deadlines {
  /** One FIFO per timeout length: deadlines within each are in increasing order. */
  private readonly queues = new Map<number, Fifo>();
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A signal that aborts with a TimeoutError `timeoutMs` from now unless cleared first. */
  start(timeoutMs: number): Deadline {
    const entry: Entry = { deadline: this.now() + timeoutMs, signal: new DeadlineSignal(), done: false };
    let queue = this.queues.get(timeoutMs);
    if (!queue) this.queues.set(timeoutMs, (queue = { items: [], head: 0 }));
    queue.items.push(entry);
    if (entry.deadline < this.armedFor) this.arm(entry.deadline);
    const fifo = queue;
    return {
      signal: entry.signal,
      clear: () => {
        entry.done = true;
        dropFinished(fifo);
      },
    };
  }

  /** Requests whose deadline is still pending (tests). */
  get pending(): number {
    let n = 0;
    for (const queue of this.queues.values()) for (let i = queue.head; i < queue.items.length; i++) if (!(queue.items[i] as Entry).done) n++;
    return n;
  }

  /** Aborts every request past its deadline and re-arms the timer for the next one. */
  fire(): void {
    // Disarmed first: a listener that starts a new request arms the timer for it.
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = this.now();
    let next = Infinity;
    for (const [timeoutMs, queue] of this.queues) {
      while (queue.head < queue.items.length) {
        const entry = queue.items[queue.head] as Entry;
        if (entry.done) {
          queue.head++;
          continue;
        }
        if (entry.deadline > now) break;
        // Past it before the listeners run: one that clears its deadline moves `head` itself,
        // and must not carry it past the next entry.
        queue.head++;
        entry.done = true;
        entry.signal.abort(new DOMException(`the request took longer than ${timeoutMs} ms`, 'TimeoutError'));
      }
      dropFinished(queue);
      if (queue.head >= queue.items.length) this.queues.delete(timeoutMs);
      else next = Math.min(next, (queue.items[queue.head] as Entry).deadline);
    }
    if (next < this.armedFor) this.arm(next);
  }

  private arm(deadline: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = deadline;
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.ceil(deadline - this.now())));
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
    this.queues.clear();
  }
}
