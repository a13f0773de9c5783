// The merchant's abandoned-checkout recovery settings (docs/recovery.md): on or off, and when each of up to three
// reminders goes after the shopper's consent. Scoped to the caller's merchant by the token; a bad schedule is refused
// whole (INVALID_INPUT) and changes nothing.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { MAX_RECOVERY_DELAY_MINUTES, MAX_RECOVERY_REMINDERS, MIN_RECOVERY_DELAY_MINUTES, RECOVERY_CONSENT_VERSION, recoveryDelaysProblem } from '../../../domain/recovery.js';
import { errorResponse } from '../../schemas/common.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['merchant'];

const recoverySettings = z
  .object({
    enabled: z.boolean().describe('The checkout page asks for consent to reminders, and shoppers who consented and left get them'),
    delaysMinutes: z
      .array(z.number().int().min(MIN_RECOVERY_DELAY_MINUTES).max(MAX_RECOVERY_DELAY_MINUTES))
      .min(1)
      .max(MAX_RECOVERY_REMINDERS)
      .describe(`When each reminder goes, in minutes after the shopper's consent: 1 to ${MAX_RECOVERY_REMINDERS}, ascending, each ${MIN_RECOVERY_DELAY_MINUTES} to ${MAX_RECOVERY_DELAY_MINUTES}`),
  })
  .meta({ id: 'RecoverySettings' });
const recoveryView = recoverySettings.extend({
  consentVersion: z.number().int().describe('The version of the consent sentence recorded with each consent (domain/recovery.ts)'),
});
const recoveryPatch = recoverySettings.partial();

export const recoverySettingsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app) => {
  const view = (m: { recoveryEnabled: boolean; recoveryDelaysMinutes: number[] }) => ({ enabled: m.recoveryEnabled, delaysMinutes: m.recoveryDelaysMinutes, consentVersion: RECOVERY_CONSENT_VERSION });
  const select = { recoveryEnabled: true, recoveryDelaysMinutes: true } as const;

  app.get('/recovery', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:read' },
    schema: { tags, summary: 'Abandoned-checkout recovery settings', ...auth, response: { 200: recoveryView, 401: errorResponse } },
  }, async (request) => view(await request.merchantData.merchant.get({ select })));

  app.patch('/recovery', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:write' },
    schema: {
      tags,
      summary: 'Switch recovery on or off and set the reminders\' schedule',
      description:
        'Only shoppers who ticked the consent box get reminders (explicit opt-in everywhere; docs/privacy.md). A schedule that is not 1 to 3 ' +
        'delays within the bounds, each after the one before ("each reminder comes after the one before"): INVALID_INPUT on body.delaysMinutes, ' +
        'nothing changed. A new schedule applies to reminders not yet sent.',
      ...auth,
      body: recoveryPatch,
      response: { 200: recoveryView, 400: errorResponse, 401: errorResponse },
    },
  }, async (request) => {
    const { enabled, delaysMinutes } = request.body;
    if (delaysMinutes !== undefined) {
      const problem = recoveryDelaysProblem(delaysMinutes);
      if (problem) throw new AppError('INVALID_INPUT', `delaysMinutes: ${problem}`, { fields: { 'body.delaysMinutes': problem } });
    }
    const updated = await request.merchantData.merchant.update({
      data: { ...(enabled !== undefined ? { recoveryEnabled: enabled } : {}), ...(delaysMinutes !== undefined ? { recoveryDelaysMinutes: delaysMinutes } : {}) },
      select,
    });
    return view(updated);
  });
};
