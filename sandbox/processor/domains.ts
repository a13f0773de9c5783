// Whop's Domains API as its documentation describes it (docs/processor.md, "Apple Pay on the embedded checkout"):
// a Domain is an account's claim to a hostname (`dom_…`); Whop returns the DNS records that prove ownership, and an
// unverified claim expires after 48 hours; each domain has an `apple_pay` capability that is added, checked and removed
// on the domain itself, whose `status` is `pending` (Whop registering it with Apple), `ready` (Apple verified it),
// `action_required` (Apple could not; `issue` says how to fix it) or `releasing` (being removed from Apple).
// Written from the docs, not from our client. Where the docs' pages could not be read whole (the capability's exact
// sub-paths, the records' field names) the shapes here are the ones docs/processor.md lists as not verified.
// Ownership is proven here by the control plane (`POST /_control/domains/:id/verification`), standing for Whop's
// own DNS check seeing the records published.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { newId, WhopError } from './store.js';

export type DomainVerificationStatus = 'pending' | 'verified' | 'expired';
export type ApplePayStatus = 'pending' | 'ready' | 'action_required' | 'releasing';
export interface DomainDnsRecord { type: 'TXT' | 'CNAME'; name: string; value: string }
export interface Domain {
  id: string; account_id: string; hostname: string;
  verification: { status: DomainVerificationStatus; records: DomainDnsRecord[]; expires_at: string | null };
  apple_pay: { status: ApplePayStatus; issue: string | null } | null;
  created_at: string; updated_at: string;
}

/** Unverified claims expire after 48 hours (Whop's Domain reference). */
const CLAIM_TTL_MS = 48 * 3600_000;
const UNVERIFIED_ISSUE = 'The domain is not verified yet: publish its DNS records, then check again.';
const hostname = z.string().trim().toLowerCase().max(253).regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'is not a hostname');
const idParams = z.object({ id: z.string().min(1).max(100) });
const createBody = z.looseObject({ hostname, account_id: z.string().optional() });
const listQuery = z.looseObject({ hostname: hostname.optional(), account_id: z.string().optional(), first: z.coerce.number().int().min(1).max(100).optional() });
const verificationBody = z.strictObject({ status: z.enum(['verified', 'expired', 'pending']) });
const applePayBody = z.strictObject({ status: z.enum(['pending', 'ready', 'action_required']), issue: z.string().max(500).nullish() });

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new WhopError(400, 'invalid_request', result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
}

export class DomainStore {
  readonly domains = new Map<string, Domain>();

  reset(): void {
    this.domains.clear();
  }

  /** An expired claim stays readable (status expired) but no longer counts as the account's. */
  private fresh(d: Domain): Domain {
    if (d.verification.status === 'pending' && d.verification.expires_at && Date.parse(d.verification.expires_at) < Date.now()) {
      d.verification.status = 'expired';
      d.updated_at = new Date().toISOString();
    }
    return d;
  }

  own(id: string, accountId: string): Domain {
    const d = this.domains.get(id);
    if (!d || d.account_id !== accountId) throw new WhopError(404, 'not_found', `Domain not found: ${id}`);
    return this.fresh(d);
  }

  list(accountId: string, host?: string): Domain[] {
    return [...this.domains.values()].filter((d) => d.account_id === accountId && (host === undefined || d.hostname === host)).map((d) => this.fresh(d));
  }

  create(accountId: string, host: string): Domain {
    if (this.list(accountId, host).some((d) => d.verification.status !== 'expired')) throw new WhopError(409, 'conflict', `This account already has the domain ${host}`);
    // An unverified claim does not reserve the hostname; a verified one elsewhere does.
    if ([...this.domains.values()].some((d) => d.hostname === host && d.account_id !== accountId && d.verification.status === 'verified')) {
      throw new WhopError(409, 'conflict', `The domain ${host} is verified by another account`);
    }
    const at = new Date();
    const token = newId('whop', 20).slice(5);
    const domain: Domain = {
      id: newId('dom'), account_id: accountId, hostname: host,
      verification: { status: 'pending', records: [{ type: 'TXT', name: `_whop-verification.${host}`, value: `whop-domain-verification=${token}` }], expires_at: new Date(at.getTime() + CLAIM_TTL_MS).toISOString() },
      apple_pay: null, created_at: at.toISOString(), updated_at: at.toISOString(),
    };
    this.domains.set(domain.id, domain);
    return domain;
  }

  /** Adds the capability (or checks it again): ready once the domain is verified, else pending with the issue. */
  checkApplePay(d: Domain, add: boolean): Domain {
    if (!d.apple_pay && !add) throw new WhopError(409, 'conflict', `Apple Pay was not added to the domain ${d.id}`);
    if (d.verification.status === 'expired') throw new WhopError(409, 'conflict', `The claim on ${d.hostname} expired: create the domain again`);
    const verified = d.verification.status === 'verified';
    if (d.apple_pay?.status === 'action_required' && !add) return d;
    d.apple_pay = verified ? { status: 'ready', issue: null } : { status: 'pending', issue: UNVERIFIED_ISSUE };
    d.updated_at = new Date().toISOString();
    return d;
  }
}

/** The Domains API, inside /api/v1 (the caller's account comes from its API key). */
export function domainApiRoutes(v1: FastifyInstance, domains: DomainStore, companyOf: (request: FastifyRequest) => string): void {
  const accountOf = (request: FastifyRequest, requested?: string) => {
    const own = companyOf(request);
    if (requested && requested !== own) throw new WhopError(403, 'forbidden', `This API key cannot act on account_id ${requested}`);
    return own;
  };
  v1.get('/domains', async (request) => {
    const query = parse(listQuery, request.query);
    const items = domains.list(accountOf(request, query.account_id), query.hostname).slice(0, query.first ?? 25);
    return { data: items, page_info: { end_cursor: null, start_cursor: null, has_next_page: false, has_previous_page: false } };
  });
  v1.post('/domains', async (request, reply) => {
    const body = parse(createBody, request.body);
    return reply.code(201).send(domains.create(accountOf(request, body.account_id), body.hostname));
  });
  v1.get('/domains/:id', async (request) => domains.own(parse(idParams, request.params).id, companyOf(request)));
  v1.post('/domains/:id/apple_pay', async (request) => domains.checkApplePay(domains.own(parse(idParams, request.params).id, companyOf(request)), true));
  v1.post('/domains/:id/apple_pay/check', async (request) => domains.checkApplePay(domains.own(parse(idParams, request.params).id, companyOf(request)), false));
  v1.delete('/domains/:id/apple_pay', async (request) => {
    const d = domains.own(parse(idParams, request.params).id, companyOf(request));
    d.apple_pay = null;
    d.updated_at = new Date().toISOString();
    return d;
  });
}

/** Control plane: the records seen published (or the claim expired); Apple refusing a verified domain. */
export function domainControlRoutes(control: FastifyInstance, domains: DomainStore): void {
  const anyDomain = (request: FastifyRequest) => {
    const d = domains.domains.get(parse(idParams, request.params).id);
    if (!d) throw new WhopError(404, 'not_found', 'Domain not found');
    return d;
  };
  control.get('/domains', async () => [...domains.domains.values()]);
  control.post('/domains/:id/verification', async (request) => {
    const d = anyDomain(request);
    d.verification.status = parse(verificationBody, request.body).status;
    d.verification.expires_at = d.verification.status === 'verified' ? null : d.verification.expires_at;
    d.updated_at = new Date().toISOString();
    return d;
  });
  control.post('/domains/:id/apple_pay', async (request) => {
    const d = anyDomain(request);
    const body = parse(applePayBody, request.body);
    d.apple_pay = { status: body.status, issue: body.issue ?? null };
    d.updated_at = new Date().toISOString();
    return d;
  });
}
