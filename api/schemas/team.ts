// Team members, invitations and two-factor sign-in: request and answer shapes (pure zod, read by the dashboard too).
import { z } from 'zod';
import { MEMBER_ROLES } from '../../domain/merchant/roles.js';
import { email, merchantView, newPassword } from './merchant.js';
import { trimmed } from './text.js';

export const memberRole = z.enum(MEMBER_ROLES).describe('owner: everything; admin: everything but the plan and owners; staff: no refunds, API keys, webhooks, billing or team (docs/api.md)');

export const memberView = z.object({
  id: z.string().nullable().describe('null for the account holder (the account\'s own email and password)'),
  email: z.string(),
  role: memberRole,
  accountHolder: z.boolean().describe('The account holder is always an owner: it cannot be removed or demoted'),
  twoFactorEnabled: z.boolean(),
  createdAt: z.string(),
});

export const invitationView = z.object({
  id: z.string(),
  email: z.string(),
  role: memberRole,
  invitedBy: z.string(),
  expiresAt: z.string(),
  createdAt: z.string(),
});

export const teamResponse = z.object({ members: z.array(memberView), invitations: z.array(invitationView) });

export const inviteBody = z.object({ email, role: memberRole }).strict();
export const roleBody = z.object({ role: memberRole }).strict();

/** The token of an invitation link (security/one-time-tokens.ts: base64url). */
export const invitationToken = trimmed(/^[A-Za-z0-9_-]{16,200}$/, 'not the token of one of our links');
export const invitationLookup = z.object({ email: z.string(), shopName: z.string(), role: memberRole, expiresAt: z.string() });
export const acceptBody = z.object({ token: invitationToken, password: newPassword.describe('Must not be the email address') }).strict();

/** A 6-digit authenticator code, or a recovery code (xxxxx-xxxxx) where one is accepted. */
export const twoFactorCode = trimmed(/^(\d{6}|[A-Za-z2-9]{5}-?[A-Za-z2-9]{5})$/, 'a 6-digit code from the authenticator app, or a recovery code like abcde-fghjk');
export const totpCode = trimmed(/^\d{6}$/, 'the 6-digit code the authenticator app shows');

export const twoFactorChallenge = z.object({
  twoFactorRequired: z.literal(true),
  challenge: z.string().describe('Send it with the code to POST /api/auth/login/two-factor within 5 minutes'),
});
export const loginResponse = z.union([
  z.object({ token: z.string().describe('JWT (HS256, 30 days); also set as the HttpOnly session cookie'), merchant: merchantView }),
  twoFactorChallenge,
]);

export const securityStatus = z.object({
  email: z.string().describe('The person signed in'),
  role: memberRole,
  twoFactor: z.object({
    enabled: z.boolean(),
    enabledAt: z.string().nullable(),
    pending: z.boolean().describe('An enrolment waits for its first code'),
    recoveryCodesLeft: z.number().int(),
  }),
});
export const enrolment = z.object({
  secret: z.string().describe('Base32, for typing into the app by hand'),
  otpauthUri: z.string().describe('otpauth://totp/… as the QR code carries it'),
});
export const recoveryCodes = z.object({ recoveryCodes: z.array(z.string()).describe('10 single-use codes, shown this once; only their hashes are kept') });
