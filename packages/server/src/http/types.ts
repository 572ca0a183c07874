import type { Clock } from '../kernel/clock.js';
import type { Principal } from '../modules/accounts/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** When the request arrived, on the app's clock (IM envelopes report it). */
    startedAt: number;
    /** The app's clock (kernel/clock.ts), the same for every request. */
    readonly clock: Clock;
    /** The client's address behind trusted proxies (http/client-address.ts), as the send-message lane reads it. */
    readonly clientAddress: string;
    /** The authenticated console user on /api routes, set by the bearer hook. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Route needs no bearer token. */
    public?: boolean;
  }
}

export {};
