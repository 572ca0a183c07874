/**
 * The IM success envelope (contract 1):
 * `{path, uri, timestamp, organization, application, action, duration, applicationName, data|entities}`.
 * Every IM route renders its answer through this one helper.
 */
import type { FastifyRequest } from 'fastify';

export interface EnvelopeApp {
  /** App UUID. */
  id: string;
  orgName: string;
  appName: string;
}

export interface ImEnvelopeBase {
  path: string;
  uri: string;
  timestamp: number;
  organization: string;
  application: string;
  action: string;
  duration: number;
  applicationName: string;
}

function base(request: FastifyRequest, app: EnvelopeApp): ImEnvelopeBase {
  const url = request.url;
  const prefix = `/${encodeURIComponent(app.orgName)}/${encodeURIComponent(app.appName)}`;
  const pathOnly = url.split('?')[0] ?? url;
  const path = pathOnly.startsWith(prefix) ? pathOnly.slice(prefix.length) || '/' : pathOnly;
  return {
    path,
    uri: `${request.protocol}://${request.host}${url}`,
    timestamp: request.startedAt,
    organization: app.orgName,
    application: app.id,
    action: request.method.toLowerCase(),
    duration: Math.max(0, request.clock.now() - request.startedAt),
    applicationName: app.appName,
  };
}

export function imData<T>(request: FastifyRequest, app: EnvelopeApp, data: T): ImEnvelopeBase & { data: T } {
  return { ...base(request, app), data };
}

export function imEntities<T>(request: FastifyRequest, app: EnvelopeApp, entities: T[]): ImEnvelopeBase & { entities: T[] } {
  return { ...base(request, app), entities };
}

/** An answer that only names what was done, as Easemob's `set user password`. */
export function imAction(request: FastifyRequest, app: EnvelopeApp, action: string): ImEnvelopeBase {
  return { ...base(request, app), action };
}

/** The envelope of a `/management` list, which spans apps: no organization or application fields. */
export function imManagementEntities<T>(request: FastifyRequest, entities: T[]) {
  const url = request.url;
  return {
    path: url.split('?')[0] ?? url,
    uri: `${request.protocol}://${request.host}${url}`,
    timestamp: request.startedAt,
    action: request.method.toLowerCase(),
    duration: Math.max(0, request.clock.now() - request.startedAt),
    entities,
    count: entities.length,
  };
}
