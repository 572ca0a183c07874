import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SensitiveWordsRequest } from '@parley/protocol';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { imAppOf } from './context.js';

/** The app's sensitive-word list (contract 4.3); app-admin token. */
export const imModerationRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  app.put(
    '/moderation/sensitive-words',
    { schema: { tags: ['im'], summary: 'Replace the sensitive-word list', body: SensitiveWordsRequest } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, { words: await im.moderation.setWords(imApp, request.body.words) });
    },
  );
  app.get('/moderation/sensitive-words', { schema: { tags: ['im'], summary: 'Read the sensitive-word list' } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, { words: await im.moderation.words(imApp) });
  });
};
