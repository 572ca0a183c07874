/**
 * The seam between the IM core and what may approve, refuse or rewrite a message before it is
 * delivered (the pre-send callback, contract 6.5).
 *
 * Every send path (REST, the JSON socket, the msync gateway) goes through
 * `ImMessagesService.enqueue`, which calls `review` once per send, after the message passed the
 * size, rate and sensitive-word checks and has its ids, and before anything is written: a
 * refusal leaves no trace, and what is stored, delivered and called back is what `review`
 * answered. A refusal is thrown as AppError `forbidden_op` with `rule: 'presend'` and the app's
 * `code`, so each protocol can name it (msync/statuses.ts).
 *
 * Edits (`EditsService.edit`, every protocol) go through `reviewEdit` the same way, after their own
 * checks and before the edit is stored or delivered.
 */
import type { ImApp, StoredMessage } from './ports.js';

export interface PreSendHook {
  /**
   * The messages to deliver, in the same order: each as it came or with the payload the app's
   * receiver gave back. Throws to refuse the whole send (nothing of it is delivered).
   */
  review(app: ImApp, messages: readonly StoredMessage[]): Promise<readonly StoredMessage[]>;
  /**
   * An edit of a sent message (edits.ts), asked about as a send is, before it is written: the
   * payload to store and deliver (as given, or rewritten). Throws to refuse the edit.
   */
  reviewEdit(app: ImApp, edit: EditUnderReview): Promise<StoredMessage['payload']>;
}

export interface EditUnderReview {
  /** The message edited, with the new payload in place of the old one. */
  message: StoredMessage;
  /** The edit's own id (the `edit` frame's id). */
  editId: string;
  /** When the edit is made (ms). */
  editTime: number;
}

/** Used when no pre-send feature is installed. */
export const noPreSend: PreSendHook = { review: async (_app, messages) => messages, reviewEdit: async (_app, edit) => edit.message.payload };
