// One's own two-factor sign-in (model/merchant/two-factor.ts): anyone signed in manages their own, never someone else's, so
// the person comes from the session (request.merchant.memberId), never from the URL. Session-only (keys: 403).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { errorResponse } from '../../schemas/common.js';
import { ok } from '../../schemas/merchant.js';
import { enrolment, recoveryCodes, securityStatus, totpCode, twoFactorCode } from '../../schemas/team.js';
import { limit } from '../../plugins/rate-limits.js';
import { confirmEnrolment, disableTwoFactor, regenerateRecoveryCodes, startEnrolment, twoFactorStatus } from '../../../model/merchant/two-factor.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['security'];
const codeErrors = { 400: errorResponse, 401: errorResponse, 403: errorResponse, 409: errorResponse, 429: errorResponse };

export const securityRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db, secrets, config } = deps;

  async function personOf(data: MerchantScope, memberId: string | null) {
    if (memberId) return (await data.members.findFirstOrThrow({ where: { id: memberId }, select: { email: true } })).email;
    return (await data.merchant.get({ select: { email: true } })).email;
  }

  app.get('/security', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin', 'staff'] },
    schema: { tags, summary: 'Your own sign-in security: two-factor state and recovery codes left', ...auth, response: { 200: securityStatus, 401: errorResponse, 403: errorResponse } },
  }, async (request) => {
    const { merchantId, memberId, role } = request.merchant;
    return { email: await personOf(request.merchantData, memberId), role, twoFactor: await twoFactorStatus(db, { merchantId, memberId }) };
  });

  app.post('/security/two-factor/enrol', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin', 'staff'] },
    schema: {
      tags,
      summary: 'Start two-factor enrolment: a new authenticator secret and its otpauth:// URI (for the QR code)',
      description: 'Nothing changes at sign-in until POST …/two-factor/confirm accepts a first code. Starting again replaces a pending secret; while two-factor is on: CONFLICT.',
      ...auth,
      response: { 200: enrolment, 401: errorResponse, 403: errorResponse, 409: errorResponse },
    },
  }, async (request) => {
    const { merchantId, memberId } = request.merchant;
    const email = await personOf(request.merchantData, memberId);
    return startEnrolment(db, secrets, { merchantId, memberId }, email);
  });

  app.post('/security/two-factor/confirm', {
    onRequest: app.authenticate,
    config: { ...limit(config, 'login'), sessionOnly: ['owner', 'admin', 'staff'] },
    schema: {
      tags,
      summary: 'Confirm enrolment with the app\'s current code: two-factor is on, and the 10 recovery codes are answered (this once)',
      ...auth,
      body: z.object({ code: totpCode }).strict(),
      response: { 200: recoveryCodes, ...codeErrors },
    },
  }, async (request) => {
    const { merchantId, memberId } = request.merchant;
    return { recoveryCodes: await confirmEnrolment(db, secrets, { merchantId, memberId }, request.body.code) };
  });

  app.post('/security/two-factor/recovery-codes', {
    onRequest: app.authenticate,
    config: { ...limit(config, 'login'), sessionOnly: ['owner', 'admin', 'staff'] },
    schema: {
      tags,
      summary: 'New recovery codes after a current authenticator code; the old ones stop working',
      ...auth,
      body: z.object({ code: totpCode }).strict(),
      response: { 200: recoveryCodes, ...codeErrors },
    },
  }, async (request) => {
    const { merchantId, memberId } = request.merchant;
    return { recoveryCodes: await regenerateRecoveryCodes(db, secrets, { merchantId, memberId }, request.body.code) };
  });

  app.post('/security/two-factor/disable', {
    onRequest: app.authenticate,
    config: { ...limit(config, 'login'), sessionOnly: ['owner', 'admin', 'staff'] },
    schema: {
      tags,
      summary: 'Turn two-factor sign-in off after a code (authenticator or recovery code); the secret and codes are deleted',
      ...auth,
      body: z.object({ code: twoFactorCode }).strict(),
      response: { 200: ok, ...codeErrors },
    },
  }, async (request) => {
    const { merchantId, memberId } = request.merchant;
    await disableTwoFactor(db, secrets, { merchantId, memberId }, request.body.code);
    return { ok: true as const, message: 'Two-factor sign-in is off' };
  });
};
