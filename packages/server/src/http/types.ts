import type { Principal } from '../modules/accounts/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Date.now() when the request arrived (IM envelopes report it). */
    startedAt: number;
    /** The authenticated console user on /api routes, set by the bearer hook. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Route needs no bearer token. */
    public?: boolean;
  }
}

export {};
