/**
 * @parley/sdk: what a customer's server needs to talk to Parley's REST channel.
 *   - ChannelClient: sign and send customer messages;
 *   - verifyReplyPush / verifyPush: check the Standard Webhooks signature of a push; parsePush tells
 *     an agent reply from a conversation event (contract 6.4);
 *   - ChannelClient.sendReceipts / sendTyping / rate: the signed customer-side calls;
 *   - ImSocket: an IM socket client (connect, send with ack, receive, rooms, reconnect);
 *   - verifyCallback: check a post-send callback (security, body MD5, Standard Webhooks);
 *   - verifyOperatorEvent: check and parse an operator event (contract 6.7);
 *   - the wire types of every body.
 */
export { ChannelClient, ParleyApiError, type ChannelClientOptions } from './client.js';
export { signSendMessageRequest, type SignRequestInput, type SignedHeaders } from './sign.js';
export { parsePush, verifyPush, verifyReplyPush, WebhookVerificationError, type ParleyPush, type VerifyPushInput } from './webhook.js';
export { verifyCallback, CallbackVerificationError, type CallbackCheck, type VerifyCallbackInput } from './callbacks.js';
export { verifyOperatorEvent, parseOperatorEvent, type VerifyOperatorEventInput } from './operations.js';
export { ImSocket, ImSocketError, backoffDelay, type BackoffOptions, type ImSocketEvents, type ImSocketOptions, type SendInput } from './im-socket.js';
export {
  validateCustomerMessage,
  signSendMessage,
  sendMessageStringToSign,
  standardWebhookHeaders,
  verifyStandardWebhook,
  type AgentReplyBody,
  type AgentReplyPush,
  type CustomerMessage,
  type MessageBody,
  type ReplyVisitor,
  type SendMessageResult,
  type Visitor,
  type ApiErrorBody,
  type CallbackRecord,
  type CatalogueCallbackRecord,
  type RosterCallbackRecord,
  type UserStatusCallbackRecord,
  type RecallCallbackRecord,
  type ReadAckCallbackRecord,
  type GroupReadAckCallbackRecord,
  INTEGRATOR_EVENT_NAMES,
  type ConversationEventPush,
  type IntegratorEventName,
  type ReceiptStatus,
  type RatingRequest,
  type RatingView,
  OPERATOR_EVENT_TYPES,
  type OperatorEvent,
  type OperatorEventType,
} from '@parley/protocol';
