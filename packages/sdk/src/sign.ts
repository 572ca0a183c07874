/**
 * Signing a send-message request (spec 5.1): the headers a customer's server puts on the POST.
 */
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';

export interface SignRequestInput {
  clientId: string;
  clientSecret: string;
  /** The association's send-message path, `/api/tenants/{tenantId}/rest/channels/{channelId}/messages`. */
  path: string;
  /** The exact body that will be sent (compact JSON). */
  body: string | Uint8Array;
  /** `X-Auth-Expires` in ms since the epoch; 0 or negative never expires. */
  expires: number;
}

export interface SignedHeaders {
  authorization: string;
  'x-auth-expires': string;
  'content-type': string;
}

export function signSendMessageRequest(input: SignRequestInput): SignedHeaders {
  const signature = signSendMessage(input.clientSecret, { method: 'POST', path: input.path, expires: input.expires, body: input.body });
  return {
    authorization: sendMessageAuthorization(input.clientId, signature),
    'x-auth-expires': String(input.expires),
    'content-type': 'application/json; utf-8',
  };
}
