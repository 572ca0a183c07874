/**
 * Where the send-message signature is enforced (spec 4.1, contract 3.2): the caller proves it
 * holds the association's secret by an HMAC over the exact bytes it sent. Order: Authorization
 * present -> tenant and edition -> channel -> Client ID owns it -> signature -> the association's
 * rate -> expiry. Nothing of the body is parsed before the signature holds. The HMAC itself is
 * `verifySendMessage` in packages/protocol/src/signing.ts (createHmac + timingSafeEqual). During a
 * rotation's overlap (contract 6.6) a signature by the previous Client Secret holds too.
 */
import { parseHmacAuthorization, verifySendMessage, type ParsedHmacAuthorization } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { liveOverlap } from '../../kernel/secret-overlap.js';
import type { AssociationsService } from './associations.js';
import type { Association } from './ports.js';

/** The Authorization and X-Auth-Expires headers, parsed. */
export interface SendMessageCredentials {
  auth: ParsedHmacAuthorization;
  expires: string;
}

/** What the signature covers, and the headers that carry it. */
export interface SignedSendMessage {
  tenantId: number;
  channelId: number;
  /** The request path exactly as received, without the query string. */
  path: string;
  authorization: string | undefined;
  expires: string | undefined;
  rawBody: Buffer;
  /** The two headers above as `readCredentials` answered them, when the caller checked them already. */
  credentials?: SendMessageCredentials;
}

/** Charges a request to its association's rate limit: 0, or the seconds until there is room. */
export type ChargeAssociation = (tenantId: number, channelId: number) => Promise<number>;

/** Cheap header check, run before the body is read: 401 `missing_authorization` unless both headers are usable. */
export function readCredentials(authorization: string | undefined, expires: string | undefined): SendMessageCredentials {
  const auth = parseHmacAuthorization(authorization);
  if (!auth) throw new AppError('missing_authorization');
  const trimmed = expires?.trim();
  if (trimmed === undefined || !/^-?\d{1,16}$/.test(trimmed)) {
    throw new AppError('missing_authorization', {}, { cause: new Error('X-Auth-Expires missing or not an integer') });
  }
  return { auth, expires: trimmed };
}

export class SendMessageSignature {
  constructor(
    private readonly associations: AssociationsService,
    private readonly clock: Clock,
  ) {}

  /**
   * The association whose secret signed `request`, or the reason it is refused. `charge`, when
   * given, is called once the signature holds and answers 0, or the seconds to wait when the
   * association is over its rate (then 429 `rate_limited`): unauthenticated requests never use
   * the association's budget.
   */
  async verify(request: SignedSendMessage, charge?: ChargeAssociation): Promise<Association> {
    const { auth, expires } = request.credentials ?? readCredentials(request.authorization, request.expires);
    const association = await this.associations.byClient(auth.clientId);
    if (!association || association.tenantId !== request.tenantId || association.id !== request.channelId) {
      // Tell an unknown tenant or channel (404), a standard tenant (403) and a Client ID that
      // does not own the channel (401) apart.
      await this.associations.require(request.tenantId, request.channelId);
      throw new AppError('invalid_client');
    }
    const signed = { method: 'POST', path: request.path, expires, body: request.rawBody };
    if (!verifySendMessage(association.signingKey, signed, auth.signature)) {
      const previous = liveOverlap(association.previousSigningKey, this.clock.now());
      if (!previous || !verifySendMessage(previous.previous, signed, auth.signature)) throw new AppError('invalid_signature');
    }
    if (charge) {
      const wait = await charge(request.tenantId, request.channelId);
      if (wait > 0) throw new AppError('rate_limited', { retryAfter: wait }, { headers: { 'retry-after': String(wait) } });
    }
    const expiresAt = Number(expires);
    if (expiresAt > 0 && expiresAt < this.clock.now()) throw new AppError('signature_expired', { expires: new Date(expiresAt).toISOString() });
    return association;
  }
}
