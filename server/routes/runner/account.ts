/** DELETE /api/me: the account and everything of it, as the privacy policy promises. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { emptyAnswer } from '../../http/contract.js';
import { deleteRunnerAccount } from '../../runner/deletion.js';
import { BEARER, requireRunner, type RunnerContext } from './context.js';
import { API_ROUTES } from '../../../contract/paths.js';

export const accountRoutes: FastifyPluginAsyncTypebox<{ ctx: RunnerContext }> = async (app, { ctx }) => {
  app.delete(
    API_ROUTES.account,
    {
      schema: {
        operationId: 'deleteAccount',
        summary: 'Delete the account: every entry, link, note, receipt, share and audio file',
        security: BEARER,
        response: { 204: emptyAnswer('The account and everything of it are gone; its sessions end at once.') },
      },
    },
    async (req, reply) => {
      const account = await requireRunner(ctx, req);
      const { files } = await deleteRunnerAccount(ctx.repo, ctx.blobs, account.id);
      req.log.info({ files }, 'runner account deleted');
      return reply.code(204).send(null);
    },
  );
};
