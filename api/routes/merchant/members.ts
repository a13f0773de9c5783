// The team: the account holder and the members who sign in to this merchant's dashboard, and invitations by email.
// Who may call these routes at all each route declares (config.sessionOnly: owners and admins; keys never); what an
// admin may do to whom is decided here: admins never create, change or remove owners. The account holder is an owner that cannot be removed or demoted, so an account always keeps an owner.
// Removing a member deletes its sessions with it: its tokens answer 401 at once.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { AppError } from '../../../domain/errors.js';
import { ROLES_GRANTABLE_BY, roleFromDb, roleToDb, type MemberRole } from '../../../domain/merchant/roles.js';
import { errorResponse } from '../../schemas/common.js';
import { ok } from '../../schemas/merchant.js';
import { invitationView, inviteBody, roleBody, teamResponse } from '../../schemas/team.js';
import { queueInvitationEmail } from '../auth/account-emails.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['team'];
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Members and pending invitations one account may have. */
export const MAX_TEAM_SIZE = 50;

const idParams = z.object({ id: z.uuid('must be a member id') });
const invitationParams = z.object({ id: z.uuid('must be an invitation id') });

function assertMayGrant(actor: MemberRole, role: MemberRole) {
  if (!ROLES_GRANTABLE_BY[actor].includes(role)) throw new AppError('FORBIDDEN', `Your role (${actor}) cannot give the ${role} role: ask an owner`, { role: actor });
}

export const memberRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db } = deps;

  /** The caller's email, as "invited by" shows it. */
  async function actorEmail(data: MerchantScope, memberId: string | null): Promise<string> {
    if (memberId) return (await data.members.findFirstOrThrow({ where: { id: memberId }, select: { email: true } })).email;
    return (await data.merchant.get({ select: { email: true } })).email;
  }

  /** A member of the caller's merchant; 404 for another merchant's id as for an unknown one. */
  async function memberOf(data: MerchantScope, id: string) {
    const member = await data.members.findFirst({ where: { id } });
    if (!member) throw new AppError('NOT_FOUND', 'No such member');
    return member;
  }

  app.get('/members', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: { tags, summary: 'The team: the account holder, the members and the pending invitations', ...auth, response: { 200: teamResponse, 401: errorResponse, 403: errorResponse } },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const data = request.merchantData;
    const [merchant, members, invitations, factors] = await Promise.all([
      data.merchant.get({ select: { email: true, createdAt: true } }),
      data.members.findMany({ orderBy: { createdAt: 'asc' } }),
      data.memberInvitations.findMany({ where: { acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } }, orderBy: { createdAt: 'asc' } }),
      data.twoFactorCredentials.findMany({ where: { enabledAt: { not: null } }, select: { subjectId: true } }),
    ]);
    const twoFactor = new Set(factors.map((f) => f.subjectId));
    return {
      members: [
        { id: null, email: merchant.email, role: 'owner' as const, accountHolder: true, twoFactorEnabled: twoFactor.has(merchantId), createdAt: merchant.createdAt.toISOString() },
        ...members.map((m) => ({ id: m.id, email: m.email, role: roleFromDb(m.role), accountHolder: false, twoFactorEnabled: twoFactor.has(m.id), createdAt: m.createdAt.toISOString() })),
      ],
      invitations: invitations.map((i) => ({ id: i.id, email: i.email, role: roleFromDb(i.role), invitedBy: i.invitedBy, expiresAt: i.expiresAt.toISOString(), createdAt: i.createdAt.toISOString() })),
    };
  });

  app.post('/members/invitations', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: {
      tags,
      summary: 'Invite someone by email to join the team with a role; the email carries a single-use link valid 7 days',
      description:
        'An admin may invite admins and staff, an owner any role (FORBIDDEN otherwise). An email that already signs in somewhere (an ' +
        'account or a member) answers EMAIL_EXISTS. A new invitation to the same email replaces the pending one.',
      ...auth,
      body: inviteBody,
      response: { 201: invitationView, 400: errorResponse, 401: errorResponse, 403: errorResponse, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { memberId, role: actor } = request.merchant;
    const data = request.merchantData;
    const { email, role } = request.body;
    assertMayGrant(actor, role);
    // Across merchants: one email signs in to one account.
    /* eslint-disable no-restricted-syntax -- across merchants: is the email any account's or member's? */
    const [account, member] = await Promise.all([
      db.merchant.findUnique({ where: { email }, select: { id: true } }),
      db.merchantMember.findUnique({ where: { email }, select: { id: true } }),
    ]);
    /* eslint-enable no-restricted-syntax */
    if (account || member) throw new AppError('EMAIL_EXISTS', 'This email already signs in to a checkout account: one email, one account');
    const size = (await data.members.count()) + (await data.memberInvitations.count({ where: { acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } } }));
    if (size >= MAX_TEAM_SIZE) throw new AppError('CONFLICT', `A team has at most ${MAX_TEAM_SIZE} members and pending invitations`);
    const invitedBy = await actorEmail(data, memberId);
    const shop = await data.merchant.get({ select: { shopName: true } });
    const [, invitation] = await data.batch([
      data.memberInvitations.updateMany({ where: { email, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date() } }),
      data.memberInvitations.create({ data: { email, role: roleToDb(role), invitedBy, expiresAt: new Date(Date.now() + INVITATION_TTL_MS) } }),
    ]);
    await queueInvitationEmail(deps, request.log, invitation, shop.shopName);
    return reply.code(201).send({ id: invitation.id, email, role, invitedBy, expiresAt: invitation.expiresAt.toISOString(), createdAt: invitation.createdAt.toISOString() });
  });

  app.delete('/members/invitations/:id', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: { tags, summary: 'Withdraw a pending invitation: its link stops working', ...auth, params: invitationParams, response: { 200: ok, 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse } },
  }, async (request) => {
    const { role: actor } = request.merchant;
    const data = request.merchantData;
    const invitation = await data.memberInvitations.findFirst({ where: { id: request.params.id, acceptedAt: null, revokedAt: null } });
    if (!invitation) throw new AppError('NOT_FOUND', 'No such pending invitation');
    assertMayGrant(actor, roleFromDb(invitation.role));
    await data.memberInvitations.update({ where: { id: invitation.id }, data: { revokedAt: new Date() } });
    return { ok: true as const, message: `The invitation to ${invitation.email} is withdrawn` };
  });

  app.patch('/members/:id', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: {
      tags,
      summary: 'Change a member\'s role (effective on its next request)',
      description: 'Only owners change an owner\'s role or make someone an owner (FORBIDDEN for admins). The account holder is not a member row: it stays an owner.',
      ...auth,
      params: idParams,
      body: roleBody,
      response: { 200: z.object({ id: z.string(), email: z.string(), role: z.enum(['owner', 'admin', 'staff']) }), 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const { role: actor } = request.merchant;
    const data = request.merchantData;
    const member = await memberOf(data, request.params.id);
    assertMayGrant(actor, roleFromDb(member.role));
    assertMayGrant(actor, request.body.role);
    const updated = await data.members.update({ where: { id: member.id }, data: { role: roleToDb(request.body.role) } });
    return { id: updated.id, email: updated.email, role: roleFromDb(updated.role) };
  });

  app.delete('/members/:id', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: {
      tags,
      summary: 'Remove a member: its sessions end at once (its tokens answer 401)',
      description: 'Only owners remove owners (FORBIDDEN for admins). The account holder cannot be removed.',
      ...auth,
      params: idParams,
      response: { 200: ok, 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const { role: actor } = request.merchant;
    const data = request.merchantData;
    const member = await memberOf(data, request.params.id);
    assertMayGrant(actor, roleFromDb(member.role));
    // Its sessions and its two-factor credential go with it (ON DELETE CASCADE).
    await data.members.delete({ where: { id: member.id } });
    return { ok: true as const, message: `${member.email} is removed from the team and signed out` };
  });
};
