/**
 * The IM rate limits, and what a message sent over a socket (JSON socket or msync) is charged:
 * first the sender's own share (PARLEY_IM_USER_SEND_RATE_LIMIT a second, across their sockets, so
 * one user cannot use up the app's budget), then the app's limit (PARLEY_IM_RATE_LIMIT a second,
 * the one its REST requests draw on). Receipts, recalls and edits sent over a socket have a bucket
 * of their own per user (PARLEY_IM_USER_CHANGE_RATE_LIMIT a second, across their sockets), not
 * drawn from the app's: a client acknowledging every message it gets never starves the sends.
 * Shared by instances through Redis when they are.
 */
import type { GuardedLimits } from '../../auth-failures.js';
import type { FixedWindowLimiter } from '../../fixed-window.js';

export interface ImLimits extends GuardedLimits {
  /** Messages per second per user over sockets. */
  userSends: FixedWindowLimiter;
  /** Receipts, recalls and edits per second per user over sockets. */
  userChanges: FixedWindowLimiter;
  /** Chat-file downloads per minute per client IP (chatfiles.ts), with or without a token. */
  fileDownloads: FixedWindowLimiter;
}

/** Charges one socket message of `username`; the seconds to wait, 0 when it may go. */
export async function chargeSocketSend(limits: ImLimits, appKey: string, username: string): Promise<number> {
  const user = await limits.userSends.take(`${appKey}|${username}`);
  if (user > 0) return user;
  return limits.own.take(appKey);
}

/** Charges one receipt, recall or edit of `username` sent over a socket; the seconds to wait, 0 when it may go. */
export async function chargeSocketChange(limits: ImLimits, appKey: string, username: string): Promise<number> {
  return limits.userChanges.take(`${appKey}|${username}`);
}
