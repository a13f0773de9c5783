// The merchant's custom checkout domain (checkout.<domain>): claim it, read its verification status, ask for
// a re-check now, remove it. The claim is a custom_domains row (unique hostname: DOMAIN_EXISTS, race-safe);
// proving it is the verification workflow's job (custom-domain-<merchantId>), which alone writes its status.
// Reads are PostgreSQL only; after a start or a signal the route waits a few seconds for the check it asked
// for, so a domain whose records exist answers verified at once.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import { Prisma } from '../../../prisma/client.js';
import type { CustomDomain } from '../../../generated/prisma/client.js';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { AppError } from '../../../domain/errors.js';
import { DOMAIN_CHECK_SCHEDULE, apexOf, dnsRecordsFor } from '../../../domain/hostnames.js';
import { assertPlanAllows } from '../../../model/merchant/plan-features.js';
import { errorResponse } from '../../schemas/common.js';
import { customDomainInput } from '../../schemas/custom-domain.js';
import { checkoutOriginWith } from '../../checkout-host.js';
import type { verifyCustomDomainWorkflow } from '../../../workflows/custom-domains/custom-domain.js';
import { recheckDomainSignal, removeDomainSignal, type CustomDomainInput } from '../../../workflows/custom-domains/custom-domain.messages.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['custom-domain'];
/** How long a route waits for the check it started or signalled before answering what is recorded. */
const CHECK_WAIT_MS = 5_000;

const dnsRecord = z.object({
  type: z.enum(['CNAME', 'TXT']),
  name: z.string().describe('The record name to create at your DNS host'),
  value: z.string(),
  required: z.boolean().describe('true: create it; false: the alternative proof when your DNS host cannot publish the CNAME as-is'),
  purpose: z.string(),
});

export const customDomainStatus = z
  .object({
    domain: z.string().describe('checkout.<your domain>'),
    status: z.enum(['pending', 'verified', 'failed', 'expired']).describe(
      'pending: checking (now, then after 1 minute doubling to hourly, for 72 hours); verified: checkouts are served and linked there; ' +
        'failed: 72 hours passed and the records found were wrong; expired: 72 hours passed without any record. failed/expired: fix the records, then POST /api/merchant/domain/verify',
    ),
    records: z.array(dnsRecord).describe('The DNS records to create: the CNAME, or the TXT record where the CNAME cannot be published as-is'),
    verifiedBy: z.enum(['cname', 'txt']).nullable(),
    checks: z.number().int().describe('DNS checks made so far'),
    lastCheckedAt: z.string().nullable(),
    lastError: z.string().nullable().describe('What the last check saw instead of a valid record'),
    verifiedAt: z.string().nullable(),
    expiresAt: z.string().nullable().describe('While pending: when checking stops'),
    checkoutOrigin: z.string().nullable().describe('Once verified: where checkouts are served'),
  })
  .meta({ id: 'CustomDomainStatus' });


export const domainRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, temporal } = deps;
  const policy = { serviceDomain: config.serviceDomain, storefrontAShopSuffix: config.storefrontA.shopSuffix };
  const workflows = temporal.client.workflow;

  async function slugOf(data: MerchantScope): Promise<string> {
    return (await data.merchant.get({ select: { slug: true } })).slug;
  }

  function view(row: CustomDomain, slug: string): z.infer<typeof customDomainStatus> {
    const verified = row.status === 'VERIFIED';
    return {
      domain: row.hostname,
      status: row.status.toLowerCase() as z.infer<typeof customDomainStatus>['status'],
      records: dnsRecordsFor(row.hostname, { slug, serviceDomain: config.serviceDomain, token: row.verificationToken }),
      verifiedBy: row.verifiedBy === 'cname' || row.verifiedBy === 'txt' ? row.verifiedBy : null,
      checks: row.checks,
      lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
      lastError: row.lastError,
      verifiedAt: row.verifiedAt?.toISOString() ?? null,
      expiresAt: row.status === 'PENDING' ? row.expiresAt.toISOString() : null,
      checkoutOrigin: verified ? checkoutOriginWith(config, slug, row.hostname) : null,
    };
  }

  /** The merchant's claim, answered as the status view; NOT_FOUND without one. */
  async function current(data: MerchantScope): Promise<CustomDomain> {
    const row = await data.customDomain.findFirst();
    if (!row) throw new AppError('NOT_FOUND', 'No custom domain is set: add one with POST /api/merchant/domain');
    return row;
  }

  /** Waits (reading the row) until the check after `checksBefore` is recorded, or the claim changed; at most CHECK_WAIT_MS. */
  async function settled(data: MerchantScope, row: CustomDomain, checksBefore: number): Promise<CustomDomain> {
    const deadline = Date.now() + CHECK_WAIT_MS;
    let latest: CustomDomain | null = row;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      latest = await data.customDomain.findFirst({ where: { id: row.id } });
      if (!latest) throw new AppError('NOT_FOUND', 'The custom domain was removed meanwhile');
      if (latest.checks > checksBefore || latest.status !== 'PENDING') return latest;
    }
    return latest;
  }

  /** Starts verification of this claim (replacing any run left over from an earlier claim). */
  async function startVerification(data: MerchantScope, row: CustomDomain, log: FastifyBaseLogger): Promise<void> {
    const input: CustomDomainInput = { merchantId: row.merchantId, domainId: row.id };
    try {
      await workflows.start<typeof verifyCustomDomainWorkflow>(WORKFLOWS.customDomain.type, {
        workflowId: WORKFLOWS.customDomain.id(row.merchantId),
        taskQueue: config.temporal.taskQueue,
        args: [input],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowIdConflictPolicy: 'TERMINATE_EXISTING',
      });
    } catch (err) {
      log.error({ err, merchantId: row.merchantId }, 'custom domain verification could not be started');
      await data.customDomain.updateMany({ where: { id: row.id, status: 'PENDING' }, data: { status: 'FAILED', lastError: 'Verification could not be started: try POST /api/merchant/domain/verify' } });
      throw new AppError('NOT_READY', 'Domain verification is temporarily unavailable: try again in a minute');
    }
  }

  app.post('/domain', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'domains:write' },
    schema: {
      tags,
      summary: 'Add a custom checkout domain (checkout.<your domain>) and start its DNS verification',
      description:
        'Answers the DNS records to create: the CNAME checkout.<domain> → {slug}.{service domain} (required: it routes the traffic ' +
        'and proves control), or, where the DNS host cannot publish that CNAME as-is, the TXT _checkout-verify.<domain> with the token ' +
        '(proof only; traffic must still reach us). Verification checks at once, then after 1 minute doubling to hourly, for 72 hours. ' +
        '201: claimed now; 200: this domain was already yours (its status). INVALID_INPUT: not checkout.<domain>, not a valid hostname, ' +
        "an IP, or a host of the service or of storefront A. DOMAIN_EXISTS: another merchant has it. CONFLICT: you have another domain (DELETE it first). " +
        'PLAN_FEATURE_REQUIRED (403): a plan without custom domains (domain/merchant/plan-features.ts; every plan has them today).',
      ...auth,
      body: z.strictObject({ domain: customDomainInput(policy) }),
      response: { 200: customDomainStatus, 201: customDomainStatus, 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 409: errorResponse, 503: errorResponse },
    },
  }, async (request, reply) => {
    const data = request.merchantData;
    const hostname = request.body.domain;
    const { platformSubscription } = await data.merchant.get({ select: { platformSubscription: { select: { planId: true, status: true } } } });
    assertPlanAllows(platformSubscription, 'customDomain');
    const slug = await slugOf(data);

    const mine = await data.customDomain.findFirst();
    if (mine) {
      if (mine.hostname === hostname) return reply.code(200).send(view(mine, slug));
      throw new AppError('CONFLICT', `Your checkout domain is ${mine.hostname}: remove it first (DELETE /api/merchant/domain)`);
    }

    let row: CustomDomain;
    try {
      row = await data.transaction(async (own, tx) => {
        // Across merchants: a claim that ran out unproven (expired/failed) does not block the domain's real owner.
        await tx.customDomain.deleteMany({ where: { hostname, merchantId: { not: data.merchantId }, status: { in: ['EXPIRED', 'FAILED'] } } });
        return own.customDomain.create({
          data: {
            hostname,
            apex: apexOf(hostname),
            verificationToken: randomBytes(16).toString('hex'),
            expiresAt: new Date(Date.now() + DOMAIN_CHECK_SCHEDULE.giveUpAfterMs),
          },
        });
      });
    } catch (err) {
      if (!(err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002')) throw err;
      // Lost a race: to this merchant's other request (answer its claim) or to another merchant.
      const again = await data.customDomain.findFirst();
      if (again?.hostname === hostname) return reply.code(200).send(view(again, slug));
      if (again) throw new AppError('CONFLICT', `Your checkout domain is ${again.hostname}: remove it first (DELETE /api/merchant/domain)`);
      throw new AppError('DOMAIN_EXISTS', `${hostname} is already used by another merchant`);
    }

    await startVerification(data, row, request.log);
    return reply.code(201).send(view(await settled(data, row, 0), slug));
  });

  app.get('/domain/status', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'domains:read' },
    schema: {
      tags,
      summary: 'The custom domain, its verification status and the DNS records to create',
      ...auth,
      response: { 200: customDomainStatus, 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const row = await current(request.merchantData);
    return view(row, await slugOf(request.merchantData));
  });

  app.post('/domain/verify', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'domains:write' },
    schema: {
      tags,
      summary: 'Check the DNS records now',
      description:
        'Pending: the running verification checks at once (at most every few seconds) instead of at its next scheduled check. ' +
        'Failed or expired: a new 72-hour verification starts. Verified: nothing to do. Answers the status after that check ' +
        '(or what is recorded, if the check takes longer than a few seconds).',
      ...auth,
      response: { 200: customDomainStatus, 401: errorResponse, 404: errorResponse, 503: errorResponse },
    },
  }, async (request) => {
    const data = request.merchantData;
    const { merchantId } = data;
    let row = await current(data);
    const slug = await slugOf(data);
    if (row.status === 'VERIFIED') return view(row, slug);

    if (row.status !== 'PENDING') {
      const { count } = await data.customDomain.updateMany({
        where: { id: row.id, status: row.status },
        data: { status: 'PENDING', expiresAt: new Date(Date.now() + DOMAIN_CHECK_SCHEDULE.giveUpAfterMs) },
      });
      row = await current(data);
      if (count > 0) {
        await startVerification(data, row, request.log);
        return view(await settled(data, row, row.checks), slug);
      }
    }
    try {
      // A verification that is no longer running (lost, terminated) is started again with the same claim.
      await workflows.signalWithStart<typeof verifyCustomDomainWorkflow, []>(WORKFLOWS.customDomain.type, {
        workflowId: WORKFLOWS.customDomain.id(merchantId),
        taskQueue: config.temporal.taskQueue,
        args: [{ merchantId, domainId: row.id }],
        signal: recheckDomainSignal,
      });
    } catch (err) {
      request.log.error({ err, merchantId }, 'custom domain re-check could not be signalled');
      throw new AppError('NOT_READY', 'Domain verification is temporarily unavailable: try again in a minute');
    }
    return view(await settled(data, row, row.checks), slug);
  });

  app.delete('/domain', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'domains:write' },
    schema: {
      tags,
      summary: 'Remove the custom domain: verification stops, checkout URLs fall back to the subdomain',
      ...auth,
      response: { 200: z.object({ deleted: z.literal(true), domain: z.string(), checkoutOrigin: z.string() }), 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const data = request.merchantData;
    const { merchantId } = data;
    const row = await current(data);
    const { count } = await data.customDomain.deleteMany({ where: { id: row.id } });
    if (count === 0) throw new AppError('NOT_FOUND', 'No custom domain is set');
    try {
      await workflows.getHandle(WORKFLOWS.customDomain.id(merchantId)).signal(removeDomainSignal);
    } catch (err) {
      // Finished already, or not there: its writes are conditional on the deleted row anyway.
      if (!(err instanceof WorkflowNotFoundError)) request.log.warn({ err, merchantId }, 'custom domain verification could not be told to stop');
    }
    const slug = await slugOf(data);
    return { deleted: true as const, domain: row.hostname, checkoutOrigin: checkoutOriginWith(config, slug, null) };
  });
};
