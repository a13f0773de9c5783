// Team roles over every route. Each route the app registers with `onRequest: app.authenticate` is called with the
// session of an owner, an admin and a staff member (and of the account holder), and the answer is held to the role
// table (domain/merchant/roles.ts, in the API keys' scope vocabulary): a refused call is 403 FORBIDDEN naming the role, an
// allowed one passes the check. Allowed writes carry a malformed JSON body, so they stop at the body parser (400)
// after authentication and change nothing; allowed reads run. Also: the table itself says what the issue asks
// (staff: no refunds, keys, webhooks, billing or team; admin: no plan changes), and a member removed is signed out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../harness/merchants.js';
import { ALL_API_KEY_SCOPES } from '../../domain/merchant/api-keys.js';
import { ROLE_SCOPES, roleAllows, routeKeyPolicy } from '../../domain/merchant/route-rights.js';
import { MEMBER_ROLES, roleToDb, type MemberRole } from '../../domain/merchant/roles.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let stack: TestStack;
let merchant: TestMerchant;
const tokens = {} as Record<MemberRole, string>;
let n = 0;

async function memberToken(m: TestMerchant, role: MemberRole): Promise<{ id: string; token: string }> {
  const member = await stack.database.db.merchantMember.create({ data: { merchantId: m.id, email: `${role}-${Date.now()}-${n++}@team.test`, passwordHash: 'x', role: roleToDb(role) } });
  return { id: member.id, token: await stack.app.issueSessionToken({ merchantId: m.id, shopDomain: '', memberId: member.id }) };
}

beforeAll(async () => {
  stack = await startTestStack();
  merchant = await createTestMerchant(stack.database.db, stack.app, 'Roles');
  for (const role of MEMBER_ROLES) tokens[role] = (await memberToken(merchant, role)).token;
});
afterAll(async () => {
  await stack?.close();
});

/** The route's URL with each parameter filled (an id that names nothing of this merchant). */
const fill = (url: string) => url.replace(/:([A-Za-z]+)/g, (_m, name: string) => (name === 'token' ? 'cs_nothing_here_000000000000' : '00000000-0000-4000-8000-000000000000'));

async function call(method: string, url: string, token: string) {
  const write = method !== 'GET' && method !== 'HEAD';
  const res = await stack.app.inject({
    method: method as 'GET',
    url: fill(url),
    remoteAddress: `203.0.113.${(n++ % 250) + 1}`,
    headers: { authorization: `Bearer ${token}`, ...(write ? { 'content-type': 'application/json' } : {}) },
    // Malformed on purpose: an allowed write stops at the body parser, after authentication, before its handler.
    ...(write ? { payload: '{"not json' } : {}),
  });
  let body: Json = {};
  try {
    body = res.json();
  } catch {
    // HEAD answers and files have no JSON body.
  }
  return { status: res.statusCode, body };
}

describe('the role table', () => {
  it('gives each role exactly its scopes', () => {
    expect(ROLE_SCOPES.owner).toEqual(ALL_API_KEY_SCOPES);
    expect(ROLE_SCOPES.admin).toEqual(ALL_API_KEY_SCOPES.filter((s) => s !== 'billing:write'));
    expect([...ROLE_SCOPES.staff].sort()).toEqual(['account:read', 'commerce:write', 'connections:read', 'domains:read', 'onboarding:read', 'orders:read', 'settings:read', 'stats:read']);
  });

  it('refuses staff refunds, status syncs, API keys, webhooks, billing and the team; lets them read orders and stats', () => {
    for (const [method, url] of [
      ['POST', '/api/checkout/merchant/orders/:token/refund'], ['POST', '/api/checkout/merchant/orders/:token/backfill-status'],
      ['GET', '/api/merchant/api-keys'], ['POST', '/api/merchant/api-keys'], ['GET', '/api/merchant/webhooks/endpoints'], ['POST', '/api/merchant/webhooks/endpoints/:id/rotate-secret'],
      ['GET', '/api/platform-billing/current'], ['POST', '/api/platform-billing/subscribe'], ['GET', '/api/merchant/members'], ['PATCH', '/api/merchant/account'],
    ] as const) {
      expect(roleAllows('staff', method, url).allowed, `${method} ${url}`).toBe(false);
    }
    for (const [method, url] of [['GET', '/api/checkout/merchant/orders'], ['GET', '/api/checkout/merchant/orders/:token'], ['GET', '/api/merchant/stats'], ['GET', '/api/merchant/security'], ['POST', '/api/merchant/security/two-factor/enrol']] as const) {
      expect(roleAllows('staff', method, url).allowed, `${method} ${url}`).toBe(true);
    }
    expect(roleAllows('admin', 'POST', '/api/platform-billing/subscribe').allowed).toBe(false);
    expect(roleAllows('admin', 'GET', '/api/platform-billing/current').allowed).toBe(true);
    expect(roleAllows('admin', 'POST', '/api/merchant/api-keys').allowed).toBe(true);
  });
});

describe('every authenticated route, with each role\'s session', () => {
  it('answers as the role table says: 403 FORBIDDEN naming the role where it refuses, past the check where it allows', async () => {
    const routes = stack.app.authenticatedRoutes;
    expect(routes.length).toBeGreaterThan(70);
    const problems: string[] = [];
    const refused: Record<MemberRole, string[]> = { owner: [], admin: [], staff: [] };
    // logout-all ends the caller's sessions: with a malformed body it stops at the parser, but it goes last anyway.
    const ordered = [...routes].sort((a, b) => Number(a.url === '/api/auth/logout-all') - Number(b.url === '/api/auth/logout-all'));
    for (const role of MEMBER_ROLES) {
      for (const { method, url } of ordered) {
        const expected = roleAllows(role, method, url).allowed;
        const { status, body } = await call(method, url, tokens[role]);
        const refusedByRole = status === 403 && body.code === 'FORBIDDEN' && body.details?.role === role;
        if (!expected) {
          refused[role].push(`${method} ${url}`);
          if (!refusedByRole && !(method === 'HEAD' && status === 403)) problems.push(`${role} ${method} ${url}: expected a role refusal, got ${status} ${JSON.stringify(body)}`);
          // The scope it needs is named, as for a key.
          const policy = routeKeyPolicy(method, url);
          if (method !== 'HEAD' && policy.kind === 'scope' && body.details?.requiredScope !== policy.scope) problems.push(`${role} ${method} ${url}: names ${body.details?.requiredScope}`);
        } else {
          if (refusedByRole || status === 401) problems.push(`${role} ${method} ${url}: expected to pass the role check, got ${status} ${JSON.stringify(body)}`);
          // A write stopped at the body parser: it passed authentication and its handler never ran.
          if (method !== 'GET' && method !== 'HEAD' && status !== 400 && status !== 415) problems.push(`${role} ${method} ${url}: an allowed write answered ${status} ${JSON.stringify(body)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(refused.owner).toEqual([]);
    // Admins: no plan changes, and not the account holder's own email and password.
    expect([...refused.admin].sort()).toEqual(['PATCH /api/merchant/account', 'POST /api/auth/email/verify-request', 'POST /api/platform-billing/cancel', 'POST /api/platform-billing/subscribe']);
    for (const route of ['POST /api/checkout/merchant/orders/:token/refund', 'GET /api/merchant/api-keys', 'POST /api/merchant/api-keys', 'GET /api/merchant/members', 'GET /api/merchant/webhooks/endpoints']) {
      expect(refused.staff).toContain(route);
    }
    expect(refused.staff).not.toContain('GET /api/checkout/merchant/orders');
  });

  it('the account holder is an owner: nothing is refused to it', async () => {
    for (const [method, url] of [['GET', '/api/merchant/members'], ['GET', '/api/merchant/api-keys'], ['GET', '/api/platform-billing/current']] as const) {
      const { status } = await call(method, url, merchant.token);
      expect(status, `${method} ${url}`).toBe(200);
    }
  });
});

describe('a staff member', () => {
  it('gets 403 on a refund and on key creation, with nothing created; reads orders; GET /me states its role and scopes', async () => {
    const staff = await memberToken(merchant, 'staff');
    const headers = { authorization: `Bearer ${staff.token}` };
    const refund = await stack.app.inject({ method: 'POST', url: '/api/checkout/merchant/orders/cs_nothing_here_000000000000/refund', headers, payload: { amount: 100 } });
    expect(refund.statusCode).toBe(403);
    expect(refund.json()).toMatchObject({ code: 'FORBIDDEN', details: { role: 'staff', requiredScope: 'orders:write' } });
    const key = await stack.app.inject({ method: 'POST', url: '/api/merchant/api-keys', headers, payload: { name: 'mine', scopes: ['orders:read'] } });
    expect(key.statusCode).toBe(403);
    expect(key.json()).toMatchObject({ code: 'FORBIDDEN', details: { role: 'staff', allowedRoles: ['owner', 'admin'] } });
    expect(await stack.database.db.apiKey.count({ where: { merchantId: merchant.id } })).toBe(0);
    expect((await stack.app.inject({ method: 'GET', url: '/api/checkout/merchant/orders', headers })).statusCode).toBe(200);
    const me = (await stack.app.inject({ method: 'GET', url: '/api/merchant/me', headers })).json();
    expect(me.viewer).toMatchObject({ memberId: staff.id, role: 'staff', twoFactorEnabled: false });
    expect(me.viewer.scopes).toEqual([...ROLE_SCOPES.staff]);
  });

  it('a role change applies on the next request, and removal signs the member out at once', async () => {
    const member = await memberToken(merchant, 'staff');
    const headers = { authorization: `Bearer ${member.token}` };
    expect((await stack.app.inject({ method: 'GET', url: '/api/merchant/api-keys', headers })).statusCode).toBe(403);
    const promote = await stack.app.inject({ method: 'PATCH', url: `/api/merchant/members/${member.id}`, headers: { authorization: `Bearer ${tokens.admin}` }, payload: { role: 'admin' } });
    expect(promote.statusCode, promote.body).toBe(200);
    expect((await stack.app.inject({ method: 'GET', url: '/api/merchant/api-keys', headers })).statusCode).toBe(200);
    const removed = await stack.app.inject({ method: 'DELETE', url: `/api/merchant/members/${member.id}`, headers: { authorization: `Bearer ${tokens.owner}` } });
    expect(removed.statusCode, removed.body).toBe(200);
    const after = await stack.app.inject({ method: 'GET', url: '/api/merchant/me', headers });
    expect(after.statusCode).toBe(401);
    expect(await stack.database.db.merchantSession.count({ where: { memberId: member.id } })).toBe(0);
  });

  it('admins cannot make owners nor touch them; another merchant\'s member is 404', async () => {
    const admin = { authorization: `Bearer ${tokens.admin}` };
    const owner = await memberToken(merchant, 'owner');
    const staff = await memberToken(merchant, 'staff');
    for (const [method, url, payload] of [
      ['PATCH', `/api/merchant/members/${staff.id}`, { role: 'owner' }],
      ['PATCH', `/api/merchant/members/${owner.id}`, { role: 'staff' }],
      ['DELETE', `/api/merchant/members/${owner.id}`, undefined],
      ['POST', '/api/merchant/members/invitations', { email: `new-${n++}@team.test`, role: 'owner' }],
    ] as const) {
      const res = await stack.app.inject({ method, url, headers: admin, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await stack.database.db.merchantMember.findUniqueOrThrow({ where: { id: owner.id } })).role).toBe('OWNER');
    const other = await createTestMerchant(stack.database.db, stack.app, 'Other');
    const foreign = await memberToken(other, 'staff');
    const res = await stack.app.inject({ method: 'DELETE', url: `/api/merchant/members/${foreign.id}`, headers: { authorization: `Bearer ${tokens.owner}` } });
    expect(res.statusCode).toBe(404);
    expect(await stack.database.db.merchantMember.count({ where: { id: foreign.id } })).toBe(1);
  });
});
