/**
 * Items pushed during one turn of the event loop, handed over together at the start of the next
 * (setImmediate): one message between the threads per turn instead of one per item. Used on both
 * sides of the outbound worker (requests out, results back).
 */
export class TurnBatch<T> {
  private items: T[] = [];
  private scheduled = false;

  constructor(private readonly handOver: (items: T[]) => void) {}

  push(item: T): void {
    this.items.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Hands over what is waiting now (nothing if empty); a later push schedules a new turn. */
  flush(): void {
    this.scheduled = false;
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.handOver(items);
  }
}
