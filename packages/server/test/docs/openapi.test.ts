/**
 * The OpenAPI document is complete enough to generate a client from: every operation has its
 * input, a success answer with a schema, the surface's error envelope for each 4xx, one example
 * and its security (openapi-audit.ts). Offenders are listed by method and path. The document does
 * not depend on the storage engine, so one engine builds it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditOpenApi, danglingRefs } from './openapi-audit.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
let t: TestApp;
let doc: any;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => t?.close());

const clone = () => JSON.parse(JSON.stringify(doc));

describe('the OpenAPI document', () => {
  it('has no operation lacking input, answers, error envelopes, an example or security', () => {
    expect(auditOpenApi(doc)).toEqual([]);
  });

  it('names both error envelopes as components, and every reference resolves', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['ApiError', 'ImError']));
    expect(doc.components.schemas.ApiError.required).toEqual(expect.arrayContaining(['status', 'errorCode', 'errorDescription', 'requestId']));
    expect(doc.components.schemas.ImError.required).toEqual(expect.arrayContaining(['error', 'error_description', 'exception', 'timestamp', 'duration']));
    expect(danglingRefs(doc)).toEqual([]);
  });

  it('documents the send-message signature as required headers and its body (spec 2.2)', () => {
    const op = doc.paths['/api/tenants/{tenantId}/rest/channels/{channelId}/messages'].post;
    expect(op.security).toEqual([{ hmac: [] }]);
    expect(doc.components.securitySchemes.hmac).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    // `Authorization` is the scheme's header (OpenAPI ignores it as a parameter); X-Auth-Expires is one.
    const headers = Object.fromEntries((op.parameters as any[]).filter((p) => p.in === 'header').map((p) => [p.name, p.required]));
    expect(headers).toEqual({ 'x-auth-expires': true });
    expect(op.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['bodies', 'origin_type', 'from', 'timestamp']));
  });

  it('describes the IM socket and its frames on its route', () => {
    const op = doc.paths['/{org}/{app}/ws'].get;
    for (const op_ of ['send', 'join', 'leave', 'ping', 'ack', 'error', 'message', 'pong']) expect(op.description).toContain(`\`${op_}\``);
    expect(op.security).toEqual([{ imToken: [] }]);
  });

  it('lists every offender by method and path', () => {
    const broken = clone();
    delete broken.paths['/api/login'].post.responses['200'].content;
    delete broken.paths['/api/tenants'].get.security;
    delete broken.paths['/{org}/{app}/chatgroups'].post.requestBody;
    broken.paths['/{org}/{app}/users'].post.responses['404'].content['application/json'].schema = { $ref: '#/components/schemas/ApiError' };
    expect(auditOpenApi(broken)).toEqual([
      'GET /api/tenants: no security stated',
      'POST /api/login: 200 response without a schema',
      'POST /{org}/{app}/chatgroups: no request body schema (or x-no-body)',
      'POST /{org}/{app}/users: 404 response is not the ImError envelope',
    ]);
  });
});
