/**
 * Contacts and block lists as Easemob's Web SDK calls them (`addContact`, `acceptInvitation`,
 * `declineInvitation`, `deleteContact`, `getContacts` / `getAllContacts`, `addUsersToBlocklist`,
 * `removeUserFromBlocklist`, `getBlocklist`, `setContactRemark`, `getContactsWithCursor`): every path names the acting user, so each takes that
 * user's own token or the app token (`{ self: 'username' }`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ImEnvelope, imEnvelopeFields } from '@parley/protocol';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { MAX_BLOCK_BATCH, MAX_CONTACTS_PAGE, MAX_REASON_LENGTH, MAX_REMARK_LENGTH } from '../../../modules/im/contacts.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

const Name = Type.String({ minLength: 1, maxLength: 128 });
const UserParams = Type.Object({ org: Type.String(), app: Type.String(), username: Name });
const PairParams = Type.Object({ org: Type.String(), app: Type.String(), username: Name, contact: Name });
const ResourceQuery = Type.Object({ resource: Type.Optional(Type.String({ maxLength: 128 })) });
const ApplyBody = Type.Object(
  { usernames: Type.Array(Name, { minItems: 1, maxItems: 1 }), reason: Type.Optional(Type.String({ maxLength: MAX_REASON_LENGTH })) },
  { examples: [{ usernames: ['ben'], reason: 'hi, it is Ann' }] },
);
const NamesBody = Type.Object({ usernames: Type.Array(Name, { minItems: 1, maxItems: MAX_BLOCK_BATCH }) }, { examples: [{ usernames: ['ben'] }] });
const Names = Type.Array(Type.String(), { examples: [['ben', 'cal']] });
const Done = Type.Object({ result: Type.Boolean(), user: Type.String() }, { examples: [{ result: true, user: 'ben' }] });
const ContactList = Type.Object(
  { ...imEnvelopeFields(), data: Names, entities: Type.Array(Type.Object({ username: Type.String(), remark: Type.String() })), count: Type.Integer() },
  { examples: [{ path: '/users/ann/contacts/users', uri: 'http://127.0.0.1:8080/acme/shop/users/ann/contacts/users', timestamp: 1764000000000, organization: 'acme', application: '8be024f0-0000-4000-8000-5d598d5f8402', action: 'get', duration: 1, applicationName: 'shop', data: ['ben'], entities: [{ username: 'ben', remark: '' }], count: 1 }] },
);

export const imContactRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  const tags = ['im'];
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);
  const config = { imAuth: { self: 'username' } } as const;
  const done = { 200: ImEnvelope(Done), ...errors };

  app.post(
    '/users/:username/contacts/apply',
    { config, schema: { tags, summary: 'Ask another user to become a contact', security, params: UserParams, querystring: ResourceQuery, body: ApplyBody, response: done } },
    async (request) => {
      const imApp = imAppOf(request);
      const to = request.body.usernames[0] as string;
      await im.contacts.apply(imApp, request.params.username, to, request.body.reason);
      return imData(request, imApp, { result: true, user: to.toLowerCase() });
    },
  );

  for (const [verb, summary] of [
    ['accept', 'Accept the contact request of a user'],
    ['decline', 'Decline the contact request of a user'],
  ] as const) {
    app.post(
      `/users/:username/contacts/${verb}/users/:contact`,
      { config, schema: { tags, summary, security, params: PairParams, querystring: ResourceQuery, 'x-no-body': true, response: done } },
      async (request) => {
        const imApp = imAppOf(request);
        await im.contacts[verb](imApp, request.params.username, request.params.contact);
        return imData(request, imApp, { result: true, user: request.params.contact.toLowerCase() });
      },
    );
  }

  app.delete(
    '/users/:username/contacts/users/:contact',
    { config, schema: { tags, summary: 'Remove a contact (both ways)', security, params: PairParams, querystring: ResourceQuery, response: done } },
    async (request) => {
      const imApp = imAppOf(request);
      const removed = await im.contacts.remove(imApp, request.params.username, request.params.contact);
      return imData(request, imApp, { result: true, user: removed });
    },
  );

  app.get(
    '/users/:username/contacts/users',
    {
      config,
      schema: {
        tags,
        summary: "A user's contacts: names in `data`, and `{username, remark}` in `entities` (getAllContacts)",
        security,
        params: UserParams,
        querystring: Type.Object({ needReturnRemark: Type.Optional(Type.Boolean()) }),
        response: { 200: ContactList, ...errors },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const contacts = await im.contacts.list(imApp, request.params.username);
      return { ...imData(request, imApp, contacts.map((c) => c.username)), entities: contacts, count: contacts.length };
    },
  );

  remarkRoutes(app, im);
  blockRoutes(app, im);
};

type Scope = Parameters<FastifyPluginAsyncTypebox>[0];

const Contact = Type.Object({ username: Type.String(), remark: Type.String() });
const ContactPage = ImEnvelope(Type.Object({ contacts: Type.Array(Contact), cursor: Type.Optional(Type.String()) }, { examples: [{ contacts: [{ username: 'ben', remark: 'Ben from work' }], cursor: 'YmVu' }] }));
const PageQuery = Type.Object({
  needReturnRemark: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CONTACTS_PAGE, description: 'Contacts per page (default 20)' })),
  cursor: Type.Optional(Type.String({ maxLength: 256 })),
});

/** `setContactRemark` and `getContactsWithCursor`. */
function remarkRoutes(app: Scope, im: ImModule): void {
  const tags = ['im'];
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);
  const config = { imAuth: { self: 'username' } } as const;
  app.put(
    '/users/:username/contacts/users/:contact',
    {
      config,
      schema: {
        tags,
        summary: "Sets the user's remark on a contact (setContactRemark)",
        security,
        params: PairParams,
        querystring: ResourceQuery,
        body: Type.Object({ remark: Type.String({ maxLength: MAX_REMARK_LENGTH }) }, { examples: [{ remark: 'Ben from work' }] }),
        response: { 200: ImEnvelope(Done), ...errors },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const contact = await im.contacts.remark(imApp, request.params.username, request.params.contact, request.body.remark);
      return imData(request, imApp, { result: true, user: contact });
    },
  );

  app.get(
    '/users/:username/contacts',
    {
      config,
      schema: { tags, summary: "A page of the user's contacts with remarks, by name (getContactsWithCursor: limit, cursor)", security, params: UserParams, querystring: PageQuery, response: { 200: ContactPage, ...errors } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const page = await im.contacts.page(imApp, request.params.username, request.query.limit ?? 20, request.query.cursor);
      return imData(request, imApp, page);
    },
  );
}

function blockRoutes(app: Scope, im: ImModule): void {
  const tags = ['im'];
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);
  const config = { imAuth: { self: 'username' } } as const;
  const names = { 200: ImEnvelope(Names), ...errors };

  app.get(
    '/users/:username/blocks/users',
    { config, schema: { tags, summary: "A user's block list", security, params: UserParams, response: names } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await im.contacts.blocks(imApp, request.params.username));
    },
  );

  app.post(
    '/sdk/user/:username/blocks',
    { config, schema: { tags, summary: "Add users to a user's block list: their one-to-one messages to the user are refused", security, params: UserParams, querystring: ResourceQuery, body: NamesBody, response: names } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await im.contacts.block(imApp, request.params.username, request.body.usernames));
    },
  );

  app.delete(
    '/sdk/user/:username/blocks',
    { config, schema: { tags, summary: "Remove users from a user's block list", security, params: UserParams, querystring: ResourceQuery, body: NamesBody, response: names } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await im.contacts.unblock(imApp, request.params.username, request.body.usernames));
    },
  );
}
