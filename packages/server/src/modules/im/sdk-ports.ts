/**
 * Storage ports of the SDK surface (contract 6.8): an app's allowed origins, user attributes,
 * contacts and block lists. The Kysely implementations live in src/storage/repositories/im*.ts.
 */

export interface ImOriginsRepository {
  /** The app's allowed origins; null when never set (every origin). */
  getOrigins(appId: string): Promise<string[] | null>;
  setOrigins(appId: string, origins: string[], now: number): Promise<void>;
}

/** A user's attributes as stored, with the text the compare-and-set compares. */
export interface StoredAttributes {
  attributes: Record<string, string>;
  /** The stored JSON text, the version a replace names. */
  text: string;
}

export interface ImAttributesRepository {
  get(appId: string, username: string): Promise<StoredAttributes | null>;
  getMany(appId: string, usernames: readonly string[]): Promise<Map<string, Record<string, string>>>;
  /**
   * Writes `next` when the stored text is still `expected` (null: no row yet). False when another
   * write came first (the caller reads again).
   */
  replace(appId: string, username: string, expected: string | null, next: Record<string, string>, now: number): Promise<boolean>;
  remove(appId: string, username: string): Promise<void>;
}

/** Contact and block-list writes, in the unit of work's transaction (`ImTransaction.contacts`), so a change commits with its callback jobs. */
export interface ImContactWrites {
  /** Records `requester`'s request to `target` (again: its reason and time are replaced). */
  request(appId: string, requester: string, target: string, reason: string, now: number): Promise<void>;
  /** Makes the two contacts and drops the requests between them; false when `requester` asked nothing of `target`. */
  accept(appId: string, target: string, requester: string, now: number): Promise<boolean>;
  /** Drops `requester`'s request to `target`; false when there was none. */
  decline(appId: string, target: string, requester: string): Promise<boolean>;
  /** Removes the contact both ways; false when they were not contacts. */
  remove(appId: string, username: string, contact: string): Promise<boolean>;
  block(appId: string, username: string, blocked: readonly string[], now: number): Promise<void>;
  unblock(appId: string, username: string, blocked: readonly string[]): Promise<void>;
}

/** A contact with the user's remark on them. */
export interface ImContact {
  username: string;
  remark: string;
}

export interface ImContactsRepository {
  areContacts(appId: string, username: string, contact: string): Promise<boolean>;
  contacts(appId: string, username: string, limit: number): Promise<string[]>;
  /** Up to `limit` contacts with their remarks, by name, after `after` (a name) when given. */
  contactsWithRemarks(appId: string, username: string, after: string | undefined, limit: number): Promise<ImContact[]>;
  /** Sets the user's remark on a contact; false when they are not contacts. */
  setRemark(appId: string, username: string, contact: string, remark: string): Promise<boolean>;
  blocks(appId: string, username: string, limit: number): Promise<string[]>;
  /** Which of `usernames` have blocked `sender`. */
  blockersOf(appId: string, sender: string, usernames: readonly string[]): Promise<string[]>;
}

/** An invitation held for its invitee's confirmation: who invited, and why. */
export interface ImGroupInvite {
  inviter: string;
  reason: string;
}
