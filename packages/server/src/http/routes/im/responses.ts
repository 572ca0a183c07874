/** Schema pieces every IM administration route declares: its error answers and its bearer. */
import { ImErrorSchema } from '@parley/protocol';

/** The IM error envelope for each status a route can answer with. */
export function imErrors<S extends number>(...statuses: S[]): Record<S, typeof ImErrorSchema> {
  return Object.fromEntries(statuses.map((status) => [status, ImErrorSchema])) as Record<S, typeof ImErrorSchema>;
}

/** An `Authorization: Bearer` token (app token, or the console's system-admin token on `/management`). */
export const BEARER = [{ bearer: [] as string[] }];
