import type { OutboundSender } from '../outbound/ports.js';

/** The part of the shared outbound sender that checks a callback address (contract 5). */
export type OutboundUrlGuard = Pick<OutboundSender, 'assertAllowedUrl'>;
