// Whop's Domains API with the `apple_pay` capability, written from Whop's official Python SDK, whop-sdk 2.6.0 on PyPI
// (Fern-generated from Whop's API definition: whop_sdk/domains/raw_client.py for the paths, parameters and answers,
// whop_sdk/types/domain*.py for the Domain) and Whop's docs (docs/processor.md, "Apple Pay on the embedded checkout").
// Not from our client. The TypeScript @whop/sdk 0.0.42 has no domains resource.
//
//   GET    /domains?account_id&domain&status&apple_pay&first&after   → { data: Domain[], page_info }
//   POST   /domains { domain, account_id?, apple_pay?, metadata?, … } → Domain (201); 400; 409
//   GET    /domains/{id | hostname}                                   → Domain
//   PATCH  /domains/{id} { apple_pay?: {} | null, metadata? }         → Domain
//   POST   /domains/{id}/check                                        → Domain "as saved"; 409
//   DELETE /domains/{id}                                              → Domain
//
// Apple Pay: adding it (create or update) makes it `pending` while "Whop registers the domain with Apple"; Apple then
// answers `ready`, or `action_required` "when Apple couldn't fetch the domain association file", with an issue
// (capability `apple_pay`, code `apple_pay_unverified`) saying what to do. Checking the domain (or passing `apple_pay`
// again) registers it again. Passing `null` releases it (`releasing`, then gone). Apple's answer comes `appleAnswerMs`
// after a registration (0 by default: the next read shows it), so a check "returns the domain as saved; retrieve it
// again to see the result", as the SDK says. Whether Apple can fetch the file is the control plane's word, per
// hostname (`POST /_control/domains/association`), standing for the file served at
// https://<host>/.well-known/apple-developer-merchantid-domain-association; by default it cannot.
//
// The key's permissions (docs, "Migrate from payment method domains"): without `domain:read` and `domain:manage`
// "listing, adding, checking, and updating domains return 403. Retrieving a domain still returns it, but with
// `apple_pay: null`". Keys have both unless the control plane takes them away (`POST /_control/domains/permissions`).
//
// What the SDK does not say, and this simulator invents (docs/processor.md lists it): the issue's message wording and
// its `dns_records` (one TXT record under `_apple-pay.<host>`), the error bodies' wording, and the conflicts' causes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { newId, WhopError } from './store.js';

export type ApplePayState = 'pending' | 'ready' | 'action_required' | 'releasing';
export type DomainStatus = 'idle' | ApplePayState;
export type DnsRecordType = 'TXT' | 'CNAME' | 'A' | 'AAAA';
export interface DomainDnsRecord { name: string; type: DnsRecordType; value: string }
export interface DomainIssue {
  capability: 'verification' | 'registration' | 'platform' | 'website' | 'apple_pay' | 'pixel';
  code: string;
  message: string;
  code_block: string | null;
  dns_records: DomainDnsRecord[];
}

/** A domain as Whop answers it to its own account (whop_sdk/types/domain.py; capabilities we do not simulate are null). */
export interface Domain {
  id: string | null;
  domain: string;
  account_id: string | null;
  status: DomainStatus;
  apple_pay: { state: ApplePayState } | null;
  verification: null;
  registration: null;
  website: null;
  pixel: null;
  platform: null;
  stats: null;
  owned_by: null;
  public_record: null;
  availability: null | { available: boolean; premium: boolean; price: null; renewal_price: null; score: number; transfer_price: null };
  issues: DomainIssue[];
  metadata: Record<string, string>;
  created_at: string | null;
  updated_at: string | null;
}

interface StoredDomain {
  id: string;
  accountId: string;
  hostname: string;
  applePay: ApplePayState | null;
  /** When Apple answers the last registration (or Whop finishes releasing it). */
  answerAt: number | null;
  /** The token of the DNS record the apple_pay issue asks for: one per domain, kept across registrations. */
  token: string;
  metadata: Record<string, string>;
  deleted: boolean;
  createdAt: string;
  updatedAt: string;
}

export type DomainPermission = 'domain:read' | 'domain:manage';

// "Bare hostname, such as example.com or checkout.example.com. … Wildcards, paths, schemes, and ports are not accepted."
const hostname = z
  .string()
  .trim()
  .toLowerCase()
  .transform((h) => h.replace(/\.$/, ''))
  .pipe(z.string().max(253).regex(/^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/, 'is not a bare hostname (no scheme, port, path or wildcard)'));
const capability = z.looseObject({}).nullable().optional();
const metadata = z.record(z.string(), z.string()).optional();
const createBody = z.looseObject({ domain: hostname, account_id: z.string().optional(), apple_pay: capability, metadata, verification: capability, registration: capability, website: capability, pixel: capability });
const updateBody = z.looseObject({ apple_pay: capability, metadata, verification: capability, registration: capability, website: capability, pixel: capability });
const stateFilter = z.enum(['pending', 'ready', 'action_required', 'releasing', 'any']);
const listQuery = z.looseObject({
  account_id: z.string().optional(),
  domain: hostname.optional(),
  status: z.enum(['idle', 'pending', 'ready', 'action_required', 'releasing']).optional(),
  apple_pay: stateFilter.optional(),
  first: z.coerce.number().int().min(1).max(100).optional(),
  after: z.string().optional(),
});
const idParams = z.object({ id: z.string().min(1).max(253) });
const associationBody = z.strictObject({ hostname, served: z.boolean() });
const permissionsBody = z.strictObject({ api_key: z.string().min(1), permissions: z.array(z.enum(['domain:read', 'domain:manage'])) });
const settingsBody = z.strictObject({ apple_answer_ms: z.number().int().min(0).max(600_000) });

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new WhopError(400, 'invalid_request', result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
}

/** Capabilities this simulator does not run: asking for one is refused plainly rather than pretended. */
function refuseUnsimulated(body: Record<string, unknown>): void {
  for (const name of ['verification', 'registration', 'website', 'pixel'] as const) {
    if (body[name] !== undefined && body[name] !== null) throw new WhopError(400, 'invalid_request', `The sandbox simulates the apple_pay capability only, not ${name}`);
  }
}

const ASSOCIATION_PATH = '/.well-known/apple-developer-merchantid-domain-association';

export class DomainStore {
  readonly domains = new Map<string, StoredDomain>();
  /** Hostnames whose association file Apple can fetch (control plane). */
  readonly associationServed = new Set<string>();
  /** API keys with fewer permissions than both (control plane); absent: both. */
  readonly permissions = new Map<string, Set<DomainPermission>>();
  appleAnswerMs = 0;

  reset(): void {
    this.domains.clear();
    this.associationServed.clear();
    this.permissions.clear();
    this.appleAnswerMs = 0;
  }

  can(apiKey: string, permission: DomainPermission): boolean {
    return this.permissions.get(apiKey)?.has(permission) ?? true;
  }

  /** Applies Apple's answer (or the end of a release) once it is due: reads see it, the stored answer of a write does not. */
  private settle(d: StoredDomain): StoredDomain {
    if (d.answerAt === null || Date.now() < d.answerAt) return d;
    d.answerAt = null;
    if (d.applePay === 'pending') d.applePay = this.associationServed.has(d.hostname) ? 'ready' : 'action_required';
    else if (d.applePay === 'releasing') d.applePay = null;
    d.updatedAt = new Date().toISOString();
    return d;
  }

  /** Whop registers the domain with Apple (again): pending until Apple answers. */
  private register(d: StoredDomain): void {
    d.applePay = 'pending';
    d.answerAt = Date.now() + this.appleAnswerMs;
    d.updatedAt = new Date().toISOString();
  }

  private release(d: StoredDomain): void {
    if (d.applePay === null) return;
    d.applePay = 'releasing';
    d.answerAt = Date.now() + this.appleAnswerMs;
    d.updatedAt = new Date().toISOString();
  }

  issuesOf(d: StoredDomain): DomainIssue[] {
    if (d.applePay !== 'action_required') return [];
    return [{
      capability: 'apple_pay',
      code: 'apple_pay_unverified',
      message:
        `Apple couldn't fetch the domain association file from https://${d.hostname}${ASSOCIATION_PATH}. ` +
        'Add the DNS record below so Whop serves the file for you, or serve the file yourself at that path, then check the domain again.',
      code_block: null,
      dns_records: [{ name: `_apple-pay.${d.hostname}`, type: 'TXT', value: `whop-apple-pay=${d.token}` }],
    }];
  }

  /** The domain as its own account sees it (`permitted`: the key may read apple_pay). */
  view(d: StoredDomain, permitted = true): Domain {
    const applePay = permitted ? d.applePay : null;
    return {
      id: d.id, domain: d.hostname, account_id: d.accountId,
      // "The most pressing state of the domain's capabilities … idle when it wants nothing."
      status: applePay ?? 'idle',
      apple_pay: applePay ? { state: applePay } : null,
      verification: null, registration: null, website: null, pixel: null, platform: null, stats: null, owned_by: null, public_record: null, availability: null,
      issues: permitted ? this.issuesOf(d) : [],
      metadata: { ...d.metadata }, created_at: d.createdAt, updated_at: d.updatedAt,
    };
  }

  /** Another account's domain: "only who has it and what it serves for anyone else" (nothing simulated serves). */
  private foreignView(d: StoredDomain): Domain {
    return { ...this.view(d, false), account_id: null, metadata: {}, status: 'idle', created_at: null, updated_at: null };
  }

  private unknownHostView(host: string): Domain {
    return {
      id: null, domain: host, account_id: null, status: 'idle', apple_pay: null, verification: null, registration: null, website: null, pixel: null, platform: null,
      stats: null, owned_by: null, public_record: null, availability: { available: false, premium: false, price: null, renewal_price: null, score: 0, transfer_price: null },
      issues: [], metadata: {}, created_at: null, updated_at: null,
    };
  }

  private live(accountId: string): StoredDomain[] {
    return [...this.domains.values()].filter((d) => d.accountId === accountId && !d.deleted).map((d) => this.settle(d));
  }

  /** A domain of the account by id (`dom_…`) or hostname; 404 otherwise. */
  own(accountId: string, idOrHost: string): StoredDomain {
    const key = idOrHost.toLowerCase();
    const d = this.live(accountId).find((x) => x.id === idOrHost || x.hostname === key);
    if (!d) throw new WhopError(404, 'not_found', `Domain not found: ${idOrHost}`);
    return d;
  }

  retrieve(accountId: string, idOrHost: string, permitted: boolean): Domain {
    const key = idOrHost.toLowerCase();
    const mine = this.live(accountId).find((x) => x.id === idOrHost || x.hostname === key);
    if (mine) return this.view(mine, permitted);
    const theirs = [...this.domains.values()].find((x) => !x.deleted && (x.id === idOrHost || x.hostname === key));
    if (theirs) return this.foreignView(theirs);
    if (idOrHost.startsWith('dom_')) throw new WhopError(404, 'not_found', `Domain not found: ${idOrHost}`);
    const host = hostname.safeParse(idOrHost.includes('.') ? idOrHost : `${idOrHost}.com`);
    if (!host.success) throw new WhopError(400, 'invalid_request', `Not a domain ID or hostname: ${idOrHost}`);
    return this.unknownHostView(host.data);
  }

  list(accountId: string, query: z.output<typeof listQuery>): StoredDomain[] {
    return this.live(accountId).filter((d) =>
      (query.domain === undefined || d.hostname === query.domain) &&
      (query.status === undefined || (d.applePay ?? 'idle') === query.status) &&
      (query.apple_pay === undefined || (query.apple_pay === 'any' ? d.applePay !== null : d.applePay === query.apple_pay)));
  }

  create(accountId: string, body: z.output<typeof createBody>): StoredDomain {
    refuseUnsimulated(body);
    // "Pass registration to buy the domain through Whop; it's the default when you pass no capability."
    if (body.apple_pay === undefined) throw new WhopError(400, 'invalid_request', 'No capability given: Whop would buy the domain (registration), which the sandbox does not simulate; pass apple_pay');
    if (this.live(accountId).some((d) => d.hostname === body.domain)) throw new WhopError(409, 'conflict', `This account already has the domain ${body.domain}: update it instead`);
    const now = new Date().toISOString();
    // "Adding a domain this account deleted revives it under its original ID."
    const revived = [...this.domains.values()].find((d) => d.accountId === accountId && d.deleted && d.hostname === body.domain);
    const d: StoredDomain = revived ?? { id: newId('dom'), accountId, hostname: body.domain, applePay: null, answerAt: null, token: newId('ap', 24).slice(3), metadata: {}, deleted: false, createdAt: now, updatedAt: now };
    d.deleted = false;
    d.applePay = null;
    d.answerAt = null;
    d.metadata = body.metadata ?? {};
    d.updatedAt = now;
    if (body.apple_pay !== null) this.register(d);
    this.domains.set(d.id, d);
    return d;
  }

  update(d: StoredDomain, body: z.output<typeof updateBody>): StoredDomain {
    refuseUnsimulated(body);
    if (body.metadata !== undefined) d.metadata = body.metadata;
    // "Pass a capability to add it …, or null to release it; capabilities you leave out don't change. Passing a
    // capability that needs action again retries it."
    if (body.apple_pay === null) this.release(d);
    else if (body.apple_pay !== undefined && (d.applePay === null || d.applePay === 'action_required' || d.applePay === 'releasing')) this.register(d);
    d.updatedAt = new Date().toISOString();
    return d;
  }

  /** "Checks the domain's DNS, payment, and provider state again now": Apple Pay is registered with Apple again. */
  check(d: StoredDomain): StoredDomain {
    if (d.applePay === 'releasing') throw new WhopError(409, 'conflict', 'The domain is releasing a capability: check it once that is done');
    if (d.applePay === 'action_required' || d.applePay === 'ready') this.register(d);
    return d;
  }

  remove(d: StoredDomain): StoredDomain {
    this.release(d);
    d.deleted = true;
    d.updatedAt = new Date().toISOString();
    return d;
  }
}

/** A page of `{ data, page_info }`; the cursor is the offset of the next item, null on the last page (the SDK stops on null). */
function page<T>(items: T[], query: { first?: number; after?: string }) {
  const start = query.after ? Number(Buffer.from(query.after, 'base64url').toString('utf8')) || 0 : 0;
  const size = query.first ?? 25;
  const data = items.slice(start, start + size);
  const more = start + size < items.length;
  const cursor = (n: number) => Buffer.from(String(n), 'utf8').toString('base64url');
  return { data, page_info: { end_cursor: more ? cursor(start + size) : null, start_cursor: data.length ? cursor(start) : null, has_next_page: more, has_previous_page: start > 0 } };
}

/** The Domains API, inside /api/v1 (the caller's account and key come from its Bearer key). */
export function domainApiRoutes(v1: FastifyInstance, domains: DomainStore, caller: (request: FastifyRequest) => { companyId: string; apiKey: string }): void {
  const accountOf = (request: FastifyRequest, requested?: string) => {
    const own = caller(request).companyId;
    if (requested && requested !== own) throw new WhopError(403, 'forbidden', `This API key cannot act on account_id ${requested}`);
    return own;
  };
  const need = (request: FastifyRequest, permission: DomainPermission) => {
    if (!domains.can(caller(request).apiKey, permission)) throw new WhopError(403, 'forbidden', `This API key lacks the ${permission} permission`);
  };
  const id = (request: FastifyRequest) => parse(idParams, request.params).id;

  v1.get('/domains', async (request) => {
    need(request, 'domain:read');
    const query = parse(listQuery, request.query);
    const account = accountOf(request, query.account_id);
    const found = page(domains.list(account, query), query);
    return { data: found.data.map((d) => domains.view(d)), page_info: found.page_info };
  });
  v1.post('/domains', async (request, reply) => {
    need(request, 'domain:manage');
    const body = parse(createBody, request.body);
    return reply.code(201).send(domains.view(domains.create(accountOf(request, body.account_id), body)));
  });
  v1.get('/domains/:id', async (request) => domains.retrieve(caller(request).companyId, id(request), domains.can(caller(request).apiKey, 'domain:read')));
  v1.patch('/domains/:id', async (request) => {
    need(request, 'domain:manage');
    const d = domains.own(caller(request).companyId, id(request));
    return domains.view(domains.update(d, parse(updateBody, request.body)));
  });
  v1.post('/domains/:id/check', async (request) => {
    need(request, 'domain:manage');
    // "Returns the domain as saved; retrieve it again to see the result."
    return domains.view(domains.check(domains.own(caller(request).companyId, id(request))));
  });
  v1.delete('/domains/:id', async (request) => {
    need(request, 'domain:manage');
    return domains.view(domains.remove(domains.own(caller(request).companyId, id(request))));
  });
}

/** Control plane: whether Apple can fetch a host's association file; a key's permissions; how long Apple takes. */
export function domainControlRoutes(control: FastifyInstance, domains: DomainStore): void {
  control.get('/domains', async () => [...domains.domains.values()].map((d) => ({ ...domains.view(d), account_id: d.accountId, deleted: d.deleted })));
  control.post('/domains/association', async (request) => {
    const body = parse(associationBody, request.body);
    if (body.served) domains.associationServed.add(body.hostname);
    else domains.associationServed.delete(body.hostname);
    return { hostname: body.hostname, served: body.served };
  });
  control.post('/domains/permissions', async (request) => {
    const body = parse(permissionsBody, request.body);
    domains.permissions.set(body.api_key, new Set(body.permissions));
    return body;
  });
  control.post('/domains/settings', async (request) => {
    domains.appleAnswerMs = parse(settingsBody, request.body).apple_answer_ms;
    return { apple_answer_ms: domains.appleAnswerMs };
  });
}
