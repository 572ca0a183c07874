/**
 * The `Status` a refusal is answered with, chosen so that the SDK raises its matching error (the
 * SDK maps errorCode + reason to its error types; see docs/im.md). Pure.
 */
import type { ImChatType } from '@parley/protocol';
import { isAppError } from '../../../kernel/errors.js';
import type { Status } from './codec.js';
import { ErrorCode } from './schema.js';

export const OK: Status = { errorCode: ErrorCode.OK };

/** Why a provision is refused, and the status that makes `open()` reject with the right error. */
export type Refusal = 'bad_token' | 'expired_token' | 'other_user' | 'unknown_app' | 'unknown_user' | 'bad_request' | 'too_many_failures';

const REFUSALS: Record<Refusal, Status> = {
  // WEBIM_CONNCTION_AUTH_ERROR
  bad_token: { errorCode: ErrorCode.UNAUTHORIZED, reason: 'Auth failed' },
  // WEBIM_TOKEN_EXPIRED
  expired_token: { errorCode: ErrorCode.FAIL, reason: 'Sorry, token expired' },
  // WEBIM_CONNCTION_TOKEN_NOT_ASSIGN_ERROR
  other_user: { errorCode: ErrorCode.FAIL, reason: 'Sorry, token or password does not match login info' },
  unknown_app: { errorCode: ErrorCode.UNAUTHORIZED, reason: 'unknown app key' },
  // USER_NOT_FOUND
  unknown_user: { errorCode: ErrorCode.FAIL, reason: 'Sorry, user not found' },
  // WEBIM_CONNCTION_AUTH_ERROR with this message
  too_many_failures: { errorCode: ErrorCode.FAIL, reason: 'too many failed logins from this address; try again later' },
  // REQUEST_PARAMETER_ERROR
  bad_request: { errorCode: ErrorCode.WRONG_PARAMETER, reason: 'the provision needs guid (app key and user name) and auth' },
};

export const refusalStatus = (refusal: Refusal): Status => REFUSALS[refusal];

/** The status of a refused send: a sensitive word is the SDK's MESSAGE_INCLUDE_ILLEGAL_CONTENT, a pre-send refusal its MESSAGE_EXTERNAL_LOGIC_BLOCKED. */
export function sendStatus(error: unknown, chatType: ImChatType, to: string): Status {
  if (!isAppError(error)) return { errorCode: ErrorCode.FAIL, reason: 'internal error' };
  if (error.params.rule === 'sensitive_word') return { errorCode: ErrorCode.PERMISSION_DENIED, reason: 'sensitive words' };
  // The app's pre-send check said no: MESSAGE_EXTERNAL_LOGIC_BLOCKED, its message the app's code.
  if (error.params.rule === 'presend') return { errorCode: ErrorCode.PERMISSION_DENIED_EXTERNAL, reason: error.message };
  // A member muted in the group (or the group all muted): USER_MUTED_BY_ADMIN.
  if (error.params.rule === 'muted') return { errorCode: ErrorCode.PERMISSION_DENIED, reason: 'user is mute' };
  switch (error.code) {
    case 'forbidden_op':
      return { errorCode: ErrorCode.FAIL, reason: chatType === 'chat' ? 'blocked' : 'not in group or chatroom' };
    case 'service_resource_not_found':
      if (chatType === 'chat') return { errorCode: ErrorCode.FAIL, reason: `username ${to} doesn't exist!` };
      return { errorCode: ErrorCode.FAIL, reason: chatType === 'groupchat' ? 'group not found' : `grpID ${to} does not exist!` };
    case 'reach_limit':
      return { errorCode: ErrorCode.PERMISSION_DENIED, reason: 'traffic limit' };
    case 'message_send_error':
      return { errorCode: ErrorCode.PERMISSION_DENIED, reason: 'Sorry, data is too large' };
    default:
      // SERVER_UNKNOWN_ERROR in the SDK, with Parley's description as its message.
      return { errorCode: ErrorCode.FAIL, reason: `${error.code}: ${error.message}` };
  }
}

/** The status of a refused chat-room join or leave. */
export function roomStatus(error: unknown, room: string): Status {
  if (isAppError(error) && error.code === 'service_resource_not_found') return { errorCode: ErrorCode.FAIL, reason: `grpID ${room} does not exist!` };
  // A user on the room's block list: the SDK's PERMISSION_DENIED, from Easemob's words.
  if (isAppError(error) && error.params.rule === 'blocked') return { errorCode: ErrorCode.FAIL, reason: `can not join this group ${room}, reason: user is in the blacklist` };
  if (isAppError(error) && error.code === 'forbidden_op') return { errorCode: ErrorCode.FAIL, reason: 'group member list is full!' };
  return { errorCode: ErrorCode.FAIL, reason: isAppError(error) ? `${error.code}: ${error.message}` : 'internal error' };
}
