// Auth: registration, login, logout, password reset and email verification.
//   - Login answers in the same time whether the email exists or not (a dummy hash is verified for
//     unknown emails) and says only INVALID_CREDENTIALS.
//   - Reset requests always answer the same 202, and queue the email in the background, so neither the
//     answer nor its timing tells whether an account exists.
//   - Single-use links: only their SHA-256 is stored; using one marks it used; a password change ends
//     every session (JWTs issued before it are refused).
import { z } from 'zod';
import { timingSafeEqual } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyBaseLogger } from 'fastify';
import { Prisma } from '../../../prisma/client.js';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { slugFromName, withSuffix } from '../../../domain/merchant/slug.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../../security/passwords.js';
import { checkPasswordPolicy } from '../../../domain/merchant/password-policy.js';
import { hashOneTimeToken } from '../../../security/one-time-tokens.js';
import { errorResponse } from '../../schemas/common.js';
import { currentPassword, email, newPassword, ok, phone, sessionResponse } from '../../schemas/merchant.js';
import { text, trimmed } from '../../schemas/text.js';
import { limit } from '../../plugins/rate-limits.js';
import { SESSION_COOKIE } from '../../plugins/auth.js';
import { merchantViewInclude, toMerchantView } from '../merchant/view.js';
import { queueAccountEmail } from './account-emails.js';
import { acceptBody, invitationLookup, invitationToken, loginResponse, twoFactorCode } from '../../schemas/team.js';
import { roleFromDb } from '../../../domain/merchant/roles.js';
import { twoFactorEnabled, twoFactorStatus, verifySecondFactor } from '../../../model/merchant/two-factor.js';

/** The purpose of the token a login answers when a second factor is needed, and how long it is good for. */
const TWO_FACTOR_PURPOSE = 'two-factor-login';
const TWO_FACTOR_CHALLENGE_SECONDS = 5 * 60;

const registerBody = z
  .object({
    email,
    password: newPassword.describe('Must not be the email address'),
    shopName: text(120, { required: 'enter the shop name' }),
    phone,
    inviteToken: text(200).optional().describe('Required only while public signup is closed'),
  })
  .strict();
/** Any email and password are checked (a wrong pair answers INVALID_CREDENTIALS, whatever its form). */
const loginEmail = text(254).toLowerCase();
const loginBody = z.object({ email: loginEmail, password: currentPassword }).strict();
/** The token of an emailed link (security/one-time-tokens.ts: base64url). */
const tokenBody = z.object({ token: trimmed(/^[A-Za-z0-9_-]{16,200}$/, 'not the token of one of our links') }).strict();
const resetConfirmBody = tokenBody.extend({ password: newPassword.describe('Must not be the account\'s email address') }).strict();

function passwordOrThrow(password: string, context: { email?: string }) {
  const problem = checkPasswordPolicy(password, context);
  if (problem) throw new AppError('INVALID_INPUT', `password: ${problem}`, { fields: { 'body.password': problem } });
}

function inviteAccepted(token: string | undefined, accepted: string[]): boolean {
  if (!token) return false;
  const given = Buffer.from(token);
  return accepted.some((t) => {
    const expected = Buffer.from(t);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

/** Creates the merchant with a slug derived from the shop name, adding a suffix while it is taken. */
async function createMerchant(deps: RouteDeps, data: { email: string; passwordHash: string; shopName: string; phone: string }) {
  const base = slugFromName(data.shopName) ?? 'shop';
  for (let attempt = 0; attempt < 6; attempt++) {
    const slug = attempt === 0 ? base : withSuffix(base, randomBytes(3).toString('hex'));
    try {
      return await deps.db.merchant.create({ data: { ...data, slug }, include: merchantViewInclude });
    } catch (err) {
      if (!(err instanceof Prisma.PrismaClientKnownRequestError) || err.code !== 'P2002') throw err;
      const target = JSON.stringify(err.meta ?? {});
      if (target.includes('email')) throw new AppError('EMAIL_EXISTS', 'An account with this email already exists');
      // slug taken: try again with a suffix
    }
  }
  throw new AppError('INTERNAL_ERROR', 'Could not find a free slug');
}

async function consumeToken(deps: RouteDeps, token: string, purpose: 'PASSWORD_RESET' | 'EMAIL_VERIFICATION') {
  const row = await deps.db.oneTimeToken.findUnique({ where: { tokenHash: hashOneTimeToken(token) } });
  if (!row || row.purpose !== purpose || row.usedAt || row.expiresAt.getTime() < Date.now()) {
    throw new AppError('INVALID_TOKEN', 'This link is invalid, used or expired: ask for a new one');
  }
  // Conditional update: of two concurrent uses, exactly one wins.
  const { count } = await deps.db.oneTimeToken.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: new Date() } });
  if (count !== 1) throw new AppError('INVALID_TOKEN', 'This link is invalid, used or expired: ask for a new one');
  return row;
}

const background = (log: FastifyBaseLogger, work: Promise<unknown>) => void work.catch((err: unknown) => log.error({ err }, 'background work failed'));

export const authRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db } = deps;
  const tags = ['auth'];

  app.post('/register', {
    config: limit(config, 'register'),
    schema: {
      tags,
      summary: 'Create a merchant account; returns a session JWT and sends the verification email',
      body: registerBody,
      response: { 201: sessionResponse, 400: errorResponse, 403: errorResponse, 409: errorResponse, 429: errorResponse },
    },
  }, async (request, reply) => {
    const body = request.body;
    if (!config.signup.public && !inviteAccepted(body.inviteToken, config.signup.inviteTokens)) {
      throw new AppError('SIGNUP_CLOSED', body.inviteToken ? 'This invite token is not valid' : 'Signup is by invitation: an inviteToken is required');
    }
    passwordOrThrow(body.password, { email: body.email });
    // One email signs in to one account: a team member's email is taken too (login would find only one of them).
    if ((await db.merchant.findUnique({ where: { email: body.email }, select: { id: true } })) || (await db.merchantMember.findUnique({ where: { email: body.email }, select: { id: true } }))) {
      throw new AppError('EMAIL_EXISTS', 'An account with this email already exists');
    }
    const merchant = await createMerchant(deps, { email: body.email, passwordHash: await hashPassword(body.password), shopName: body.shopName, phone: body.phone });
    await queueAccountEmail(deps, request.log, merchant, 'email_verification');
    const token = await app.startSession(reply, { merchantId: merchant.id, shopDomain: merchant.shopDomain ?? '' });
    return reply.code(201).send({ token, merchant: toMerchantView(merchant, config) });
  });

  app.post('/login', {
    config: limit(config, 'login'),
    schema: {
      tags,
      summary: 'Log in; returns a session JWT (also set as the session cookie), or a two-factor challenge',
      description:
        'The account holder and team members log in here with their own email and password. When the person has two-factor sign-in ' +
        'on, the answer is `{ twoFactorRequired: true, challenge }` and no session starts: send the challenge with a code to ' +
        'POST /api/auth/login/two-factor within 5 minutes.',
      body: loginBody,
      response: { 200: loginResponse, 400: errorResponse, 401: errorResponse, 429: errorResponse },
    },
  }, async (request, reply) => {
    const { email: given, password } = request.body;
    const merchant = await db.merchant.findUnique({ where: { email: given }, include: merchantViewInclude });
    const member = merchant ? null : await db.merchantMember.findUnique({ where: { email: given }, select: { id: true, merchantId: true, passwordHash: true } });
    // Same work on every path: an unknown email verifies against a dummy hash.
    const valid = await verifyPassword(password, merchant?.passwordHash ?? member?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if ((!merchant && !member) || !valid) throw new AppError('INVALID_CREDENTIALS', 'Email or password is wrong');
    const account = merchant ?? (await db.merchant.findUniqueOrThrow({ where: { id: member!.merchantId }, include: merchantViewInclude }));
    const claims = { merchantId: account.id, shopDomain: account.shopDomain ?? '', memberId: member?.id ?? null };
    if (await twoFactorEnabled(db, { merchantId: account.id, memberId: claims.memberId })) {
      return { twoFactorRequired: true as const, challenge: app.signPurposeToken(claims, TWO_FACTOR_PURPOSE, TWO_FACTOR_CHALLENGE_SECONDS) };
    }
    const token = await app.startSession(reply, claims);
    return { token, merchant: toMerchantView(account, config) };
  });

  app.post('/login/two-factor', {
    config: limit(config, 'login'),
    schema: {
      tags,
      summary: 'Second step of a login: the challenge and a code from the authenticator app (or a recovery code, once); returns the session',
      description:
        'A wrong, expired or already used code answers INVALID_TWO_FACTOR_CODE (a code works once: the same code again is refused). Five ' +
        'wrong codes in a row pause code checks for this person for 15 minutes (TWO_FACTOR_LOCKED). An expired or foreign challenge: ' +
        'UNAUTHORIZED, log in again.',
      body: z.object({ challenge: text(2000, { required: 'the challenge of the login answer' }), code: twoFactorCode }).strict(),
      response: { 200: sessionResponse.extend({ usedRecoveryCode: z.boolean().describe('A recovery code was used: it is gone, and the answer says how many are left') , recoveryCodesLeft: z.number().int() }), 400: errorResponse, 401: errorResponse, 409: errorResponse, 429: errorResponse },
    },
  }, async (request, reply) => {
    const claims = app.verifyPurposeToken(request.body.challenge, TWO_FACTOR_PURPOSE);
    const who = { merchantId: claims.merchantId, memberId: claims.memberId ?? null };
    // The member may have been removed since the password step: then there is nobody to sign in.
    if (who.memberId && !(await db.merchantMember.findFirst({ where: { id: who.memberId, merchantId: who.merchantId }, select: { id: true } }))) {
      throw new AppError('UNAUTHORIZED', 'This sign-in is no longer valid: log in again');
    }
    const used = await verifySecondFactor(db, deps.secrets, who, request.body.code);
    const merchant = await db.merchant.findUniqueOrThrow({ where: { id: who.merchantId }, include: merchantViewInclude });
    const token = await app.startSession(reply, { merchantId: merchant.id, shopDomain: merchant.shopDomain ?? '', memberId: who.memberId });
    const status = await twoFactorStatus(db, who);
    return { token, merchant: toMerchantView(merchant, config), usedRecoveryCode: used === 'recovery_code', recoveryCodesLeft: status.recoveryCodesLeft };
  });

  /** A pending invitation by its link's token; INVALID_TOKEN when unknown, used, withdrawn or expired. */
  async function pendingInvitation(token: string) {
    const invitation = await db.memberInvitation.findUnique({ where: { tokenHash: hashOneTimeToken(token) }, include: { merchant: { select: { shopName: true } } } });
    if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt.getTime() < Date.now()) {
      throw new AppError('INVALID_TOKEN', 'This invitation is invalid, used, withdrawn or expired: ask for a new one');
    }
    return invitation;
  }

  app.post('/invitations/lookup', {
    config: limit(config, 'passwordReset'),
    schema: {
      tags,
      summary: 'What an invitation link is for (email, shop, role), so the page can say it before the password is chosen',
      body: z.object({ token: invitationToken }).strict(),
      response: { 200: invitationLookup, 400: errorResponse, 429: errorResponse },
    },
  }, async (request) => {
    const invitation = await pendingInvitation(request.body.token);
    return { email: invitation.email, shopName: invitation.merchant.shopName, role: roleFromDb(invitation.role), expiresAt: invitation.expiresAt.toISOString() };
  });

  app.post('/invitations/accept', {
    config: limit(config, 'passwordReset'),
    schema: {
      tags,
      summary: 'Accept an invitation: choose a password; the member is created with the invitation\'s role and signed in',
      description: 'The link works once. An email that signs in elsewhere meanwhile answers EMAIL_EXISTS.',
      body: acceptBody,
      response: { 201: sessionResponse, 400: errorResponse, 409: errorResponse, 429: errorResponse },
    },
  }, async (request, reply) => {
    const found = await pendingInvitation(request.body.token);
    passwordOrThrow(request.body.password, { email: found.email });
    if (await db.merchant.findUnique({ where: { email: found.email }, select: { id: true } })) throw new AppError('EMAIL_EXISTS', 'This email already signs in to a checkout account');
    const passwordHash = await hashPassword(request.body.password);
    let memberId: string;
    try {
      memberId = await db.$transaction(async (tx) => {
        // Conditional: of two acceptances at once, exactly one wins.
        const { count } = await tx.memberInvitation.updateMany({ where: { id: found.id, acceptedAt: null, revokedAt: null }, data: { acceptedAt: new Date() } });
        if (count !== 1) throw new AppError('INVALID_TOKEN', 'This invitation is invalid, used, withdrawn or expired: ask for a new one');
        const member = await tx.merchantMember.create({ data: { merchantId: found.merchantId, email: found.email, passwordHash, role: found.role } });
        return member.id;
      });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new AppError('EMAIL_EXISTS', 'This email already signs in to a checkout account');
      throw err;
    }
    const merchant = await db.merchant.findUniqueOrThrow({ where: { id: found.merchantId }, include: merchantViewInclude });
    const token = await app.startSession(reply, { merchantId: merchant.id, shopDomain: merchant.shopDomain ?? '', memberId });
    return reply.code(201).send({ token, merchant: toMerchantView(merchant, config) });
  });

  app.post('/logout', {
    schema: {
      tags,
      summary: 'Log out: end this session (its token stops working at once) and clear the session cookie',
      description:
        'Ends the session of the token presented (Authorization: Bearer, or the session cookie from the dashboard\'s origin): that token ' +
        'answers 401 from now on, on every device that holds a copy. Other sessions of the merchant go on; POST /api/auth/logout-all ends ' +
        'them all. Always answers 200 and clears the cookie, also without a valid token (nothing to end).',
      response: { 200: ok },
    },
  }, async (request, reply) => {
    const ended = await app.endSession(request);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { ok: true as const, message: ended ? 'Logged out: this session has ended' : 'Logged out' };
  });

  app.post('/logout-all', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin', 'staff'] },
    schema: {
      tags,
      summary: 'Log out everywhere: end every session of this merchant, this one included',
      description:
        'Every token issued to this merchant (every device and browser, API clients included) answers 401 from now on, and the cookie is ' +
        'cleared; log in again to get a new one. Use it after losing a device or sharing a token by mistake. A password change also ends ' +
        'every other session.',
      security: [{ bearerAuth: [] }],
      response: { 200: ok.extend({ sessionsEnded: z.number().int().describe('How many sessions were still live') }), 401: errorResponse, 403: errorResponse },
    },
  }, async (request, reply) => {
    const sessionsEnded = await app.endAllSessions(request.merchant.merchantId, request.merchant.memberId);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { ok: true as const, message: 'Logged out everywhere: every session has ended', sessionsEnded };
  });

  app.post('/password/reset-request', {
    config: limit(config, 'passwordReset'),
    schema: {
      tags,
      summary: 'Email a single-use password reset link (valid 1 hour). Always answers the same.',
      body: z.object({ email: loginEmail }).strict(),
      response: { 202: ok, 400: errorResponse, 429: errorResponse },
    },
  }, async (request, reply) => {
    const found = db.merchant.findUnique({ where: { email: request.body.email }, select: { id: true, email: true } });
    background(request.log, found.then((m) => (m ? queueAccountEmail(deps, request.log, m, 'password_reset') : undefined)));
    return reply.code(202).send({ ok: true as const, message: 'If an account exists for this email, a reset link is on its way.' });
  });

  app.post('/password/reset-confirm', {
    config: limit(config, 'passwordReset'),
    schema: {
      tags,
      summary: 'Set a new password with a reset token; ends every existing session',
      description: 'The token of an unknown, used or expired link answers INVALID_TOKEN; the password must not be the account\'s email.',
      body: resetConfirmBody,
      response: { 200: sessionResponse, 400: errorResponse, 429: errorResponse },
    },
  }, async (request, reply) => {
    const merchantId = (await db.oneTimeToken.findUnique({ where: { tokenHash: hashOneTimeToken(request.body.token) }, select: { merchantId: true } }))?.merchantId;
    const owner = merchantId ? await db.merchant.findUnique({ where: { id: merchantId }, select: { email: true } }) : null;
    passwordOrThrow(request.body.password, { email: owner?.email });
    const row = await consumeToken(deps, request.body.token, 'PASSWORD_RESET');
    // The change is dated one second back from the new session's iat boundary: see api/plugins/auth.ts.
    const merchant = await db.merchant.update({
      where: { id: row.merchantId },
      data: { passwordHash: await hashPassword(request.body.password), passwordChangedAt: new Date(Math.floor(Date.now() / 1000) * 1000) },
      include: merchantViewInclude,
    });
    await db.oneTimeToken.updateMany({ where: { merchantId: merchant.id, purpose: 'PASSWORD_RESET', usedAt: null }, data: { usedAt: new Date() } });
    await app.endAllSessions(merchant.id, null);
    const token = await app.startSession(reply, { merchantId: merchant.id, shopDomain: merchant.shopDomain ?? '' });
    return { token, merchant: toMerchantView(merchant, config) };
  });

  app.post('/email/verify-request', {
    onRequest: app.authenticate,
    config: { ...limit(config, 'passwordReset'), sessionOnly: ['owner'] },
    schema: {
      tags,
      summary: 'Send the email verification link again (valid 48 hours)',
      security: [{ bearerAuth: [] }],
      response: { 202: ok, 401: errorResponse, 409: errorResponse, 429: errorResponse },
    },
  }, async (request, reply) => {
    const merchant = await db.merchant.findUniqueOrThrow({ where: { id: request.merchant.merchantId } });
    if (merchant.emailVerifiedAt) throw new AppError('CONFLICT', 'This email address is already verified');
    await queueAccountEmail(deps, request.log, merchant, 'email_verification');
    return reply.code(202).send({ ok: true as const, message: `A new link is on its way to ${merchant.email}.` });
  });

  app.post('/email/verify-confirm', {
    schema: {
      tags,
      summary: 'Confirm the email address with the token of the verification link',
      description: 'The token of an unknown, used or expired link answers INVALID_TOKEN.',
      body: tokenBody,
      response: { 200: ok, 400: errorResponse },
    },
  }, async (request) => {
    const row = await consumeToken(deps, request.body.token, 'EMAIL_VERIFICATION');
    await db.merchant.update({ where: { id: row.merchantId }, data: { emailVerifiedAt: new Date() } });
    return { ok: true as const, message: 'Email address verified' };
  });
};
