import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ImEnvelope, SensitiveWords, SensitiveWordsRequest } from '@parley/protocol';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { imAppOf } from './context.js';

/** The app's sensitive-word list (contract 4.3); app-admin token. */
export const imModerationRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  app.put(
    '/moderation/sensitive-words',
    { schema: { tags: ['im'], summary: 'Replace the sensitive-word list', security: IM_TOKEN, body: SensitiveWordsRequest, response: { 200: ImEnvelope(SensitiveWords), ...imErrors(...IM_ADMIN_ERRORS) } } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, { words: await im.moderation.setWords(imApp, request.body.words) });
    },
  );
  const readSchema = { tags: ['im'], summary: 'Read the sensitive-word list', security: IM_TOKEN, response: { 200: ImEnvelope(SensitiveWords), ...imErrors(...IM_ADMIN_ERRORS) } };
  app.get('/moderation/sensitive-words', { schema: readSchema }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, { words: await im.moderation.words(imApp) });
  });
};
