// Storefront B connection activities: prove the merchant's REST keys against their store, then save the
// connection (keys sealed) and make storefront B the merchant's store platform. The keys arrive sealed
// (the API sealed them) and are opened only here, for the one call that needs them.
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../prisma/client.js';
import { Prisma } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import { UnsafeUrlError, type UrlGuard } from '../../security/ssrf.js';
import { storefrontBClientOf } from '../../model/connections.js';
import { AppError } from '../../domain/errors.js';
import { processorChargesIn, unchargeableStoreCurrency } from '../../integrations/processor/currencies.js';
import { classifyFailures } from '../failures.js';

export interface ConnectStorefrontBInput {
  merchantId: string;
  /** Normalised store URL (origin + path, no trailing slash), already checked by the SSRF guard. */
  storeUrl: string;
  /**
   * The REST keys, sealed by the API (aad storefrontBAad.*): workflow history holds only their ciphertext,
   * and nothing is written to storefront_b_connections until the store has accepted them, so a mistyped
   * key never replaces a working connection.
   */
  consumerKeyEnc: string;
  consumerSecretEnc: string;
  consumerKeyLast4: string;
}
export interface StorefrontBStoreInfo {
  currency: string;
  version: string;
  /** Whether our official plugin is active on the store (it must be to intercept checkouts). */
  pluginActive: boolean;
}

export interface StorefrontBActivityDeps {
  db: Db;
  secrets: SecretBox;
  urlGuard: UrlGuard;
  /** Per-call time-out of the store client (default 10 s); tests shorten it. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** What a merchant who connected a key that cannot write orders is told (WooCommerce's own screen and words). */
export const READ_ONLY_KEY =
  'This REST API key cannot create orders: its Permissions are "Read". In WordPress admin → WooCommerce → Settings → Advanced → ' +
  'REST API, add a key (or edit this one) with Permissions "Read/Write", for an administrator or shop manager, and connect with that key';

/** The merchant's shop domain for a storefront B store: the store URL's host (with a non-default port). */
export function storeHost(storeUrl: string): string {
  return new URL(storeUrl).host;
}

export function createStorefrontBActivities(deps: StorefrontBActivityDeps) {
  const { db, urlGuard } = deps;

  return classifyFailures({
    /** GET system_status with the keys: only an authorised key sees it. Answers what the store reports. */
    async validateStorefrontBCredentials(input: ConnectStorefrontBInput): Promise<StorefrontBStoreInfo> {
      // Checked again here, where the call is made: the name may resolve elsewhere than when the API checked it.
      try {
        await urlGuard.check(input.storeUrl);
      } catch (err) {
        if (err instanceof UnsafeUrlError) throw ApplicationFailure.nonRetryable(`storeUrl: ${err.message}`, 'INVALID_INPUT');
        throw err;
      }
      // The URL was checked just above, with the answer the merchant needs (INVALID_INPUT naming the field).
      const client = await storefrontBClientOf({ ...deps, urlGuard: undefined }, input.merchantId, input);
      const status = await client.validateCredentials();
      // Refused here, not after a shopper has paid (the order create is the first write).
      if (!status.canWriteOrders) throw new AppError('INVALID_STORE_CREDENTIALS', READ_ONLY_KEY);
      // Every checkout of a store in a currency Whop cannot charge would fall back to the store's own checkout: said now.
      if (!processorChargesIn(status.currency)) throw new AppError('UNSUPPORTED_CURRENCY', unchargeableStoreCurrency(status.currency));
      return { currency: status.currency, version: status.version, pluginActive: status.pluginActive };
    },

    /**
     * Saves the connection (replacing the merchant's previous one) and makes storefront B the merchant's
     * platform with the store's host as shop domain. A store URL another merchant holds is a CONFLICT.
     */
    async saveStorefrontBConnection(input: ConnectStorefrontBInput): Promise<{ connectedAt: string }> {
      const { merchantId, storeUrl } = input;
      const connectedAt = new Date();
      const fields = {
        storeUrl,
        consumerKeyEnc: input.consumerKeyEnc,
        consumerKeyLast4: input.consumerKeyLast4,
        consumerSecretEnc: input.consumerSecretEnc,
        connectedAt,
      };
      try {
        await db.$transaction(async (tx) => {
          const previous = await tx.storefrontBConnection.findUnique({ where: { merchantId }, select: { storeUrl: true } });
          await tx.storefrontBConnection.upsert({
            where: { merchantId },
            create: { merchantId, ...fields },
            // The plugin's interception belongs to a store: another store has to prove it again.
            update: previous?.storeUrl === storeUrl ? fields : { ...fields, pluginInterceptedAt: null },
          });
          await tx.merchant.update({ where: { id: merchantId }, data: { storePlatform: 'STOREFRONT_B', shopDomain: storeHost(storeUrl) } });
        });
      } catch (err) {
        if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
          throw ApplicationFailure.nonRetryable('This store is already connected to another account', 'CONFLICT');
        }
        if (err instanceof Prisma.PrismaClientKnownRequestError && (err.code === 'P2025' || err.code === 'P2003')) {
          throw ApplicationFailure.nonRetryable('The merchant account no longer exists', 'NOT_FOUND');
        }
        throw err;
      }
      return { connectedAt: connectedAt.toISOString() };
    },
  });
}

export type StorefrontBActivities = ReturnType<typeof createStorefrontBActivities>;
