// Team invitations and two-factor sign-in through the API, on the real stack (worker and sandbox mailbox): an invite
// emails a single-use link; accepting it makes the member with the invitation's role and signs it in. Two-factor:
// enrolment with a confirmation code, 10 recovery codes shown once and kept hashed, the secret sealed at rest; login
// asks for a code after the password; a code works once (replay refused), a recovery code once; wrong codes lock.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { dataDump } from '../../../test/harness/pg-catalog.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let stack: TestStack;
let n = 0;
const PASSWORD = 'correct horse battery 9';

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, opts: { token?: string; body?: unknown } = {}) {
  const res = await stack.app.inject({
    method, url, remoteAddress: `192.0.2.${(n++ % 250) + 1}`,
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
    ...(opts.body !== undefined ? { payload: opts.body as Json } : {}),
  });
  return { status: res.statusCode, body: res.json() as Json, text: res.body };
}

async function register() {
  const email = `holder${Date.now()}${n++}@shop.test`;
  const res = await call('POST', '/api/auth/register', { body: { email, password: PASSWORD, shopName: 'Team Shop', phone: '+49 30 1234567' } });
  expect(res.status, res.text).toBe(201);
  return { email, token: res.body.token as string, id: res.body.merchant.id as string };
}

async function waitForEmail(to: string, tag: string) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const found = stack.sims.email.messages({ to, tag });
    if (found.length) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${tag} email to ${to}`);
}

const linkToken = (text: string) => /accept-invite\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? '';
const codeAt = (secret: string, offsetSeconds = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetSeconds * 1000 });

async function enrol(token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await call('POST', '/api/merchant/security/two-factor/enrol', { token });
  expect(started.status, started.text).toBe(200);
  const secret = started.body.secret as string;
  const confirmed = await call('POST', '/api/merchant/security/two-factor/confirm', { token, body: { code: codeAt(secret) } });
  expect(confirmed.status, confirmed.text).toBe(200);
  return { secret, recoveryCodes: confirmed.body.recoveryCodes as string[] };
}

describe('invitations', () => {
  it('given an owner\'s invitation / the email\'s link shows what it is for, creates the member once with its role, and signs it in', async () => {
    const holder = await register();
    const email = `staff${Date.now()}${n++}@team.test`;
    const invited = await call('POST', '/api/merchant/members/invitations', { token: holder.token, body: { email, role: 'staff' } });
    expect(invited.status, invited.text).toBe(201);
    expect(invited.body).toMatchObject({ email, role: 'staff', invitedBy: holder.email });
    const [message] = await waitForEmail(email, 'member_invitation');
    const token = linkToken(message!.TextBody ?? '');
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // Only its hash is stored.
    const row = await stack.database.db.memberInvitation.findUniqueOrThrow({ where: { id: invited.body.id } });
    expect(row.tokenHash).not.toContain(token);
    expect((await call('POST', '/api/auth/invitations/lookup', { body: { token } })).body).toMatchObject({ email, shopName: 'Team Shop', role: 'staff' });
    const weak = await call('POST', '/api/auth/invitations/accept', { body: { token, password: 'short' } });
    expect(weak.status).toBe(400);
    const accepted = await call('POST', '/api/auth/invitations/accept', { body: { token, password: PASSWORD } });
    expect(accepted.status, accepted.text).toBe(201);
    const me = await call('GET', '/api/merchant/me', { token: accepted.body.token });
    expect(me.body.viewer).toMatchObject({ email, role: 'staff' });
    expect(me.body.id).toBe(holder.id);
    const again = await call('POST', '/api/auth/invitations/accept', { body: { token, password: PASSWORD } });
    expect(again.body.code).toBe('INVALID_TOKEN');
    // The member logs in with its own email and password.
    const login = await call('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
    expect((await call('GET', '/api/merchant/me', { token: login.body.token })).body.viewer.role).toBe('staff');
    const team = await call('GET', '/api/merchant/members', { token: holder.token });
    expect(team.body.members.map((m: Json) => [m.email, m.role, m.accountHolder])).toEqual([[holder.email, 'owner', true], [email, 'staff', false]]);
    expect(team.body.invitations).toEqual([]);
    // The member's email is taken for registration; the account holder's credentials are not the member's to change.
    expect((await call('POST', '/api/auth/register', { body: { email, password: PASSWORD, shopName: 'Copy', phone: '+49 30 1234567' } })).body.code).toBe('EMAIL_EXISTS');
    const owner = await stack.database.db.merchantMember.update({ where: { email }, data: { role: 'OWNER' } });
    const change = await call('PATCH', '/api/merchant/account', { token: login.body.token, body: { currentPassword: PASSWORD, newPassword: 'another fine password 5' } });
    expect(change.status, change.text).toBe(403);
    expect(change.body.details).toMatchObject({ role: 'owner' });
    expect(owner.id).toBe(me.body.viewer.memberId);
  });

  it('given an email that already signs in, a withdrawn invitation, or bad input / refused, nothing made', async () => {
    const holder = await register();
    const other = await register();
    expect((await call('POST', '/api/merchant/members/invitations', { token: holder.token, body: { email: other.email, role: 'admin' } })).body.code).toBe('EMAIL_EXISTS');
    expect((await call('POST', '/api/merchant/members/invitations', { token: holder.token, body: { email: 'not an email', role: 'admin' } })).status).toBe(400);
    expect((await call('POST', '/api/merchant/members/invitations', { token: holder.token, body: { email: 'x@team.test', role: 'boss' } })).status).toBe(400);
    const email = `gone${Date.now()}${n++}@team.test`;
    const invited = await call('POST', '/api/merchant/members/invitations', { token: holder.token, body: { email, role: 'admin' } });
    const [message] = await waitForEmail(email, 'member_invitation');
    expect((await call('DELETE', `/api/merchant/members/invitations/${invited.body.id}`, { token: holder.token })).status).toBe(200);
    const accepted = await call('POST', '/api/auth/invitations/accept', { body: { token: linkToken(message!.TextBody ?? ''), password: PASSWORD } });
    expect(accepted.body.code).toBe('INVALID_TOKEN');
    expect(await stack.database.db.merchantMember.count({ where: { email } })).toBe(0);
  });
});

describe('two-factor sign-in', () => {
  it('given an enrolment / a wrong confirmation code is refused; the right one turns it on with 10 recovery codes, stored hashed and the secret sealed', async () => {
    const holder = await register();
    const started = await call('POST', '/api/merchant/security/two-factor/enrol', { token: holder.token });
    expect(started.body.otpauthUri).toMatch(/^otpauth:\/\/totp\/Checkout:.*secret=[A-Z2-7]+/);
    const wrong = await call('POST', '/api/merchant/security/two-factor/confirm', { token: holder.token, body: { code: codeAt(started.body.secret, 300) } });
    expect(wrong.body.code).toBe('INVALID_TWO_FACTOR_CODE');
    expect((await call('GET', '/api/merchant/security', { token: holder.token })).body.twoFactor).toMatchObject({ enabled: false, pending: true });
    const confirmed = await call('POST', '/api/merchant/security/two-factor/confirm', { token: holder.token, body: { code: codeAt(started.body.secret) } });
    expect(confirmed.status, confirmed.text).toBe(200);
    const codes = confirmed.body.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const row = await stack.database.db.twoFactorCredential.findUniqueOrThrow({ where: { subjectId: holder.id } });
    expect(row.secretEnc).not.toContain(started.body.secret);
    expect(row.recoveryCodeHashes).toHaveLength(10);
    for (const code of codes) expect(row.recoveryCodeHashes.join()).not.toContain(code.replace('-', ''));
    expect((await call('GET', '/api/merchant/security', { token: holder.token })).body.twoFactor).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    // A dump of every row holds neither the secret nor a recovery code in clear text (with or without its dash).
    const dump = await dataDump(stack.database.url);
    expect(dump).toContain(holder.id);
    expect(dump.includes(started.body.secret)).toBe(false);
    for (const code of codes) expect(dump.includes(code) || dump.includes(code.replace('-', ''))).toBe(false);
    // Enrolling again while on: refused.
    expect((await call('POST', '/api/merchant/security/two-factor/enrol', { token: holder.token })).body.code).toBe('CONFLICT');
  });

  it('given two-factor on / login asks for a code; the right code signs in once, the same code again is refused, a recovery code works once', async () => {
    const holder = await register();
    const { secret, recoveryCodes } = await enrol(holder.token);
    const login = async () => {
      const res = await call('POST', '/api/auth/login', { body: { email: holder.email, password: PASSWORD } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ twoFactorRequired: true, challenge: expect.any(String) });
      expect(res.body.token).toBeUndefined();
      return res.body.challenge as string;
    };
    // The confirmation used this step's code: it is spent, so the next step's code signs in.
    const used = codeAt(secret);
    const replayedFromEnrolment = await call('POST', '/api/auth/login/two-factor', { body: { challenge: await login(), code: used } });
    expect(replayedFromEnrolment.body.code).toBe('INVALID_TWO_FACTOR_CODE');
    const next = codeAt(secret, 30);
    const ok = await call('POST', '/api/auth/login/two-factor', { body: { challenge: await login(), code: next } });
    expect(ok.status, ok.text).toBe(200);
    expect((await call('GET', '/api/merchant/me', { token: ok.body.token })).body.viewer.twoFactorEnabled).toBe(true);
    const replay = await call('POST', '/api/auth/login/two-factor', { body: { challenge: await login(), code: next } });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('INVALID_TWO_FACTOR_CODE');
    // A recovery code, once.
    const recovered = await call('POST', '/api/auth/login/two-factor', { body: { challenge: await login(), code: recoveryCodes[0]!.toUpperCase() } });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body).toMatchObject({ usedRecoveryCode: true, recoveryCodesLeft: 9 });
    const twice = await call('POST', '/api/auth/login/two-factor', { body: { challenge: await login(), code: recoveryCodes[0] } });
    expect(twice.body.code).toBe('INVALID_TWO_FACTOR_CODE');
    // A challenge is not a session, and a session token is not a challenge.
    expect((await call('GET', '/api/merchant/me', { token: await login() })).status).toBe(401);
    expect((await call('POST', '/api/auth/login/two-factor', { body: { challenge: ok.body.token, code: codeAt(secret, 60) } })).status).toBe(401);
  });

  it('given five wrong codes / code checks lock for 15 minutes, the right code included', async () => {
    const holder = await register();
    const { secret } = await enrol(holder.token);
    const challenge = (await call('POST', '/api/auth/login', { body: { email: holder.email, password: PASSWORD } })).body.challenge as string;
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) codes.push((await call('POST', '/api/auth/login/two-factor', { body: { challenge, code: '000000' } })).body.code as string);
    expect(codes).toEqual(['INVALID_TWO_FACTOR_CODE', 'INVALID_TWO_FACTOR_CODE', 'INVALID_TWO_FACTOR_CODE', 'INVALID_TWO_FACTOR_CODE', 'TWO_FACTOR_LOCKED']);
    const locked = await call('POST', '/api/auth/login/two-factor', { body: { challenge, code: codeAt(secret, 30) } });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('TWO_FACTOR_LOCKED');
  });

  it('given a member / its two-factor is its own; regenerating codes replaces them; disabling needs a code', async () => {
    const holder = await register();
    const member = await stack.database.db.merchantMember.create({ data: { merchantId: holder.id, email: `m${Date.now()}${n++}@team.test`, passwordHash: 'x', role: 'ADMIN' } });
    const memberToken = await stack.app.issueSessionToken({ merchantId: holder.id, shopDomain: '', memberId: member.id });
    const { secret, recoveryCodes } = await enrol(memberToken);
    expect((await call('GET', '/api/merchant/security', { token: holder.token })).body.twoFactor.enabled).toBe(false);
    const fresh = await call('POST', '/api/merchant/security/two-factor/recovery-codes', { token: memberToken, body: { code: codeAt(secret, 30) } });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.recoveryCodes).toHaveLength(10);
    expect(fresh.body.recoveryCodes).not.toContain(recoveryCodes[0]);
    expect((await call('POST', '/api/merchant/security/two-factor/disable', { token: memberToken, body: { code: recoveryCodes[0] } })).body.code).toBe('INVALID_TWO_FACTOR_CODE');
    const off = await call('POST', '/api/merchant/security/two-factor/disable', { token: memberToken, body: { code: fresh.body.recoveryCodes[0] } });
    expect(off.status, off.text).toBe(200);
    expect(await stack.database.db.twoFactorCredential.count({ where: { memberId: member.id } })).toBe(0);
  });
});
