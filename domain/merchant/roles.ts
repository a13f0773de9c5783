// Team member roles (what each may call, in the API keys' scope vocabulary, is ROLE_SCOPES in ./route-rights.ts): a
// member's session is held to its role's scopes by the same check that holds a key to its scopes (api/plugins/auth.ts),
// on every authenticated route. Session-only routes (no scope) name their roles where they are defined
// (`config: { sessionOnly: [...] }`). Pure module, shared by the API and the dashboard (which hides what a role cannot use).
//
//   owner  everything. The account holder (the merchant's own email and password) is always an owner and cannot be
//          removed or demoted, so an account always keeps an owner; members may be owners too.
//   admin  everything except changing the plan (billing:write) and touching owners: an admin cannot invite an
//          owner, make anyone an owner, or change or remove an owner (api/routes/merchant/members.ts).
//   staff  the shop's daily work: reads orders, statistics, settings, connections and setup, and manages discount
//          codes, order bumps, upsells and pixels. No refunds or status syncs (orders:write), no API keys, no
//          webhook endpoints or their secrets, no billing, no team, no account credentials.

export const MEMBER_ROLES = ['owner', 'admin', 'staff'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const MEMBER_ROLE_LABELS: Record<MemberRole, { label: string; summary: string }> = {
  owner: { label: 'Owner', summary: 'Everything, the plan and the team included' },
  admin: { label: 'Admin', summary: 'Everything except the plan and owners' },
  staff: { label: 'Staff', summary: 'Orders, statistics and marketing; no refunds, API keys, webhooks, billing or team' },
};

/** A role may give (invite to, change to) only roles it could manage: admins never create owners. */
export const ROLES_GRANTABLE_BY: Readonly<Record<MemberRole, readonly MemberRole[]>> = {
  owner: ['owner', 'admin', 'staff'],
  admin: ['admin', 'staff'],
  staff: [],
};

export const isMemberRole = (value: string): value is MemberRole => (MEMBER_ROLES as readonly string[]).includes(value);

export const roleFromDb = (role: 'OWNER' | 'ADMIN' | 'STAFF'): MemberRole => role.toLowerCase() as MemberRole;
export const roleToDb = (role: MemberRole) => role.toUpperCase() as 'OWNER' | 'ADMIN' | 'STAFF';
