/**
 * The storage side of the conversation search's text index (message-indexer.ts): the messages
 * past the watermark, and one step that indexes a range of them and moves the watermark.
 */

/** A stored message past the watermark: its id and when it was written (ms). */
export interface PendingMessage {
  id: number;
  createdAt: number;
}

export interface MessageSearchIndex {
  /** The watermark (every message with an id up to it is indexed) and up to `limit` messages past it, by id. */
  pending(limit: number): Promise<{ indexedTo: number; messages: PendingMessage[] }>;
  /**
   * In one transaction: indexes the text of the messages with ids in (`from`, `to`], marks their
   * closed conversations whose latest activity came after their close, and moves the watermark
   * from `from` to `to`. Does nothing and answers false when the watermark is no longer `from`
   * (another run moved it), so a step is never applied twice.
   */
  advance(from: number, to: number): Promise<boolean>;
}
