// Wallet domains: the domain checkouts are served at, as the merchant's processor account knows it for wallet
// payments (Apple Pay, Google Pay). Whop's API has no wallet-domain endpoint (docs/processor.md), so the spec's
// fallback holds: the merchant is emailed the domain, adds it in Whop's dashboard and confirms here that it appears
// there; only then are wallets ready. A confirmation holds for one domain and one Whop company: a new checkout
// domain (custom domain verified or removed) or another company needs a new one. One row per merchant, written by
// the wallet-domain workflow's checks and the merchant's confirm/withdraw routes, one writer at a time.
import type { Config } from '../config/index.js';
import type { Db, Prisma } from '../prisma/client.js';
import type { WalletDomain } from '../generated/prisma/client.js';
import { AppError } from '../domain/errors.js';
import { currentCheckoutDomain } from './checkout-domain.js';

type Tx = Prisma.TransactionClient;

/** What the merchant is told while the domain is not confirmed. */
export const WALLET_NEEDS_ACTION_MESSAGE =
  "Whop's API offers no wallet domain registration: add this domain in your Whop dashboard (payment settings), then confirm here that it appears there.";

export type WalletDomainRowStatus = 'REGISTERED' | 'NEEDS_ACTION';

/** Where wallets must be registered now: the checkout domain and the connected processor company (null: none connected). */
export interface WalletTarget {
  domain: string;
  businessId: string;
  row: WalletDomain | null;
}

export type WalletTargetResult = { ok: true; target: WalletTarget } | { ok: false; reason: string };

async function targetOf(db: Db | Tx, config: Pick<Config, 'serviceDomain'>, merchantId: string): Promise<WalletTargetResult> {
  const merchant = await db.merchant.findUnique({
    where: { id: merchantId },
    select: {
      slug: true,
      customDomain: { select: { hostname: true, status: true } },
      processorConnection: { select: { status: true, businessId: true } },
      walletDomain: true,
    },
  });
  if (!merchant) return { ok: false, reason: 'the merchant no longer exists' };
  const connection = merchant.processorConnection;
  if (!connection || connection.status !== 'CONNECTED' || !connection.businessId) return { ok: false, reason: 'no processor is connected' };
  return { ok: true, target: { domain: currentCheckoutDomain(config, merchant), businessId: connection.businessId, row: merchant.walletDomain } };
}

/** The merchant's confirmation stands for this target: same domain, same company, not withdrawn. */
export function isConfirmedFor(row: WalletDomain | null, target: Pick<WalletTarget, 'domain' | 'businessId'>): boolean {
  return !!row && row.domain === target.domain && row.businessId === target.businessId && row.status === 'REGISTERED' && row.confirmedAt !== null;
}

/** Runs `write` with the merchant's wallet row to itself (a transaction-scoped advisory lock per merchant). */
async function exclusively<T>(db: Db, merchantId: string, write: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`wallet-domain:${merchantId}`}, 0))`;
    return write(tx);
  });
}

async function save(tx: Tx, merchantId: string, target: WalletTarget, status: WalletDomainRowStatus, statusMessage: string, confirmedAt: Date | null): Promise<WalletDomain> {
  const now = new Date();
  const data = { domain: target.domain, businessId: target.businessId, status, statusMessage, lastCheckedAt: now, registeredAt: confirmedAt, confirmedAt };
  return tx.walletDomain.upsert({ where: { merchantId }, create: { merchantId, ...data }, update: data });
}

const confirmedMessage = (at: Date) => `You confirmed on ${at.toISOString().slice(0, 10)} that this domain appears in your Whop dashboard's wallet domains.`;

/**
 * One check by the wallet-domain workflow: records the current domain's status. A confirmation of this domain and
 * company stands; anything else (a new domain, another company, never confirmed) needs the merchant.
 */
export async function checkWalletDomain(db: Db, config: Pick<Config, 'serviceDomain'>, merchantId: string): Promise<{ ok: true; row: WalletDomain } | { ok: false; reason: string }> {
  return exclusively(db, merchantId, async (tx) => {
    const found = await targetOf(tx, config, merchantId);
    if (!found.ok) return found;
    const { target } = found;
    const confirmed = isConfirmedFor(target.row, target) ? target.row!.confirmedAt : null;
    const row = confirmed
      ? await save(tx, merchantId, target, 'REGISTERED', target.row!.statusMessage ?? confirmedMessage(confirmed), confirmed)
      : await save(tx, merchantId, target, 'NEEDS_ACTION', WALLET_NEEDS_ACTION_MESSAGE, null);
    return { ok: true, row };
  });
}

/**
 * The merchant says `domain` appears in its Whop dashboard's wallet domains. It must be the domain checkouts are
 * served at now (else CONFLICT: the domain changed since the page was shown) with a connected processor (else
 * NOT_FOUND). Confirming again keeps the first date.
 */
export async function confirmWalletDomain(db: Db, config: Pick<Config, 'serviceDomain'>, merchantId: string, domain: string): Promise<WalletDomain> {
  return exclusively(db, merchantId, async (tx) => {
    const found = await targetOf(tx, config, merchantId);
    if (!found.ok) throw new AppError('NOT_FOUND', 'No processor is connected: connect it before confirming its wallet domain');
    const { target } = found;
    if (domain !== target.domain) {
      throw new AppError('CONFLICT', `Checkouts are served at ${target.domain}, not ${domain}: add and confirm ${target.domain}`, { currentDomain: target.domain });
    }
    if (isConfirmedFor(target.row, target)) return target.row!;
    const at = new Date();
    return save(tx, merchantId, target, 'REGISTERED', confirmedMessage(at), at);
  });
}

/** The merchant takes its confirmation back (the domain is not, or no longer, in Whop's dashboard): wallets are not ready. */
export async function withdrawWalletDomain(db: Db, config: Pick<Config, 'serviceDomain'>, merchantId: string): Promise<WalletDomain> {
  return exclusively(db, merchantId, async (tx) => {
    const found = await targetOf(tx, config, merchantId);
    if (!found.ok) throw new AppError('NOT_FOUND', 'No processor is connected');
    return save(tx, merchantId, found.target, 'NEEDS_ACTION', WALLET_NEEDS_ACTION_MESSAGE, null);
  });
}

/** What GET /api/merchant/processor shows of it; null without a connected processor. */
export async function walletDomainView(db: Db, config: Pick<Config, 'serviceDomain'>, merchantId: string) {
  const found = await targetOf(db, config, merchantId);
  if (!found.ok) return null;
  return walletView(found.target.row, found.target);
}

export function walletView(row: WalletDomain | null, target: Pick<WalletTarget, 'domain' | 'businessId'>) {
  if (!row || row.domain !== target.domain || row.businessId !== target.businessId) {
    return { domain: target.domain, status: 'not_registered' as const, ready: false, statusMessage: null, lastCheckedAt: null, confirmedAt: null };
  }
  const status = row.status.toLowerCase() as 'registered' | 'pending' | 'needs_action' | 'error';
  const ready = isConfirmedFor(row, target);
  return { domain: target.domain, status, ready, statusMessage: row.statusMessage, lastCheckedAt: row.lastCheckedAt.toISOString(), confirmedAt: row.confirmedAt?.toISOString() ?? null };
}
