/** Customer-service success envelopes (contract 1). */
export const ok = <T>(entity: T) => ({ status: 'OK' as const, entity });
export const list = <T>(entities: T[]) => ({ status: 'OK' as const, entities, total: entities.length });
