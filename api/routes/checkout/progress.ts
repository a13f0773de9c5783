// The checkout page reports the shopper's progress before payment (contact entered, shipping chosen), so the
// funnel sees where shoppers leave; init-payment and complete-cod record both steps anyway. Not a status
// change (the session's workflow owns those): one statement that sets the milestone if it is unset and, only
// then, appends the timeline event, so a repeated or concurrent report records the step once.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Prisma } from '../../../prisma/client.js';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { OPEN_STATUSES } from '../../../domain/checkout/checkout-status.js';
import { MILESTONE_COLUMNS, PROGRESS_STEPS, upTo } from '../../../domain/stats.js';
import { isSessionToken } from '../../../domain/tokens.js';
import { limit } from '../../plugins/rate-limits.js';
import { errorResponse } from '../../schemas/common.js';
import { tokenParams } from '../../schemas/checkout.js';
import { progressBody, progressResponse } from '../../schemas/orders.js';

const noSession = () => new AppError('NOT_FOUND', 'No such checkout session');

export const checkoutProgressRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db } = deps;

  app.post('/api/checkout/:token/progress', {
    config: limit(config, 'checkoutProgress'),
    schema: {
      tags: ['checkout'],
      summary: 'The checkout page reports a step the shopper completed (for the funnel statistics)',
      description:
        'step: contact_entered (the email is filled in) or shipping_chosen (a rate is picked). Recorded once per session and step, on the ' +
        'session\'s timeline and in its funnel milestones; a repeat answers recorded: false and changes nothing, and so does a report on ' +
        'a preview or on a session that is no longer open. Nothing the shopper typed is sent or stored here. Dedicated rate limiter.',
      params: tokenParams,
      body: progressBody,
      response: { 200: progressResponse, 400: errorResponse, 404: errorResponse, 429: errorResponse },
    },
  }, async (request) => {
    const { token } = request.params;
    if (!isSessionToken(token)) throw noSession();
    const { step } = request.body;
    const milestone = PROGRESS_STEPS[step];
    const column = Prisma.raw(`"${MILESTONE_COLUMNS[milestone]}"`);
    const at = new Date();
    // The step, and the earlier ones still unset (milestones are cumulative: domain/stats.ts).
    const sets = upTo(milestone).map((m) => {
      const c = Prisma.raw(`"${MILESTONE_COLUMNS[m]}"`);
      return Prisma.sql`${c} = COALESCE(${c}, ${at})`;
    });
    const recorded = await db.$queryRaw<Array<{ id: string }>>`
      WITH marked AS (
        UPDATE checkout_sessions SET ${Prisma.join(sets)}, last_activity_at = ${at}
        WHERE token = ${token} AND ${column} IS NULL AND source <> 'preview' AND status IN (${Prisma.join(OPEN_STATUSES)})
        RETURNING token
      )
      INSERT INTO session_events (id, token, type, data, at)
      SELECT gen_random_uuid(), token, ${step}, '{}'::jsonb, ${at} FROM marked
      RETURNING id::text`;
    if (recorded.length > 0) return { recorded: true };
    const exists = await db.checkoutSession.findUnique({ where: { token }, select: { token: true } });
    if (!exists) throw noSession();
    return { recorded: false };
  });
};
