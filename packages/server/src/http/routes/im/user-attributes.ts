/**
 * User attributes (Easemob's `/metadata/user`): `PUT` and `DELETE` of one user (the user's own
 * token or the app token), `GET` of one (the same), and `POST /metadata/user/get` for several
 * (any token of the app: users show each other's nicknames and avatars). The SDK's `PUT` is
 * form-encoded; JSON is taken too.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ImEnvelope, UsernameParams } from '@parley/protocol';
import { inspectJson } from '../../../kernel/input-checks.js';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { ATTRIBUTE_FIELDS, MAX_ATTRIBUTE_KEY_LENGTH, MAX_ATTRIBUTE_TARGETS } from '../../../modules/im/user-attributes.js';
import { inputError } from '../../input-guard.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

/** The largest attribute write, as Easemob bounds it (the stored total is 2 KiB). */
const BODY_LIMIT = 4096;

const Attributes = Type.Record(Type.String(), Type.String(), {
  description: `Attribute name → value. Easemob's fields: ${ATTRIBUTE_FIELDS.join(', ')}; custom names 1-${MAX_ATTRIBUTE_KEY_LENGTH} of A-Za-z0-9_.-`,
  examples: [{ nickname: 'Ann', avatarurl: 'https://cdn.example.com/ann.png', gender: '2' }],
});
const AttributeWrite = Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 2048 }), Type.Number(), Type.Boolean()]), {
  description: 'Form-encoded (as the SDK sends it) or a JSON object',
  examples: [{ nickname: 'Ann' }],
});
const BatchRequest = Type.Object(
  {
    targets: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_ATTRIBUTE_TARGETS }),
    properties: Type.Optional(Type.Array(Type.String({ maxLength: MAX_ATTRIBUTE_KEY_LENGTH }), { maxItems: 100 })),
  },
  { examples: [{ targets: ['ann', 'ben'], properties: ['nickname', 'avatarurl'] }] },
);
const Batch = Type.Record(Type.String(), Attributes, { examples: [{ ann: { nickname: 'Ann' } }] });

export const imUserAttributeRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  // Encapsulated in this plugin: the form body of the SDK's PUT, checked like JSON.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    const value = Object.fromEntries(new URLSearchParams(body as string));
    const fault = inspectJson(value);
    done(fault ? inputError(request, fault) : null, fault ? undefined : value);
  });
  const tags = ['im'];
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);
  const self = { imAuth: { self: 'username' } } as const;

  app.put(
    '/metadata/user/:username',
    {
      bodyLimit: BODY_LIMIT,
      config: self,
      schema: { tags, summary: "Set a user's attributes (merged into the stored ones)", security, params: UsernameParams, body: AttributeWrite, response: { 200: ImEnvelope(Attributes), ...errors } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await im.attributes.set(imApp, request.params.username, request.body));
    },
  );

  app.get(
    '/metadata/user/:username',
    { config: self, schema: { tags, summary: "Read a user's attributes", security, params: UsernameParams, response: { 200: ImEnvelope(Attributes), ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await im.attributes.get(imApp, request.params.username));
    },
  );

  app.delete(
    '/metadata/user/:username',
    { config: self, schema: { tags, summary: "Delete a user's attributes", security, params: UsernameParams, response: { 200: ImEnvelope(Type.Boolean({ examples: [true] })), ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      await im.attributes.remove(imApp, request.params.username);
      return imData(request, imApp, true);
    },
  );

  app.post(
    '/metadata/user/get',
    { config: { imAuth: 'user' }, schema: { tags, summary: 'Read the attributes of several users (up to 100)', security, body: BatchRequest, response: { 200: ImEnvelope(Batch), ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await im.attributes.getMany(imApp, request.body.targets, request.body.properties));
    },
  );
};
