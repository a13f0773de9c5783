// A merchant's connections to the systems we call for them: the catalogue of the labels each sealed secret is
// bound to, and the one place a store or processor client is built from stored, encrypted credentials. The API
// (checkout create, webhooks) and the activities (orders, payments, connection set-up) both build clients here,
// so every caller gets the same guards: the connection must be usable, the secret must open, a merchant-given
// store URL is checked against the SSRF guard again right before the call.
//
// A connection that is missing or whose secret will not open is an AppError with a code from domain/errors.ts:
// the API answers it as it is, activities turn it into a non-retryable Temporal failure of that type
// (activities/failures.ts). What the remote side does (and a store URL that cannot be reached safely now) is an
// IntegrationError, retried or not by its kind.
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import { UnsafeUrlError, type UrlGuard } from '../security/ssrf.js';
import { checkPinned, pinnedFetch } from '../security/pinned-fetch.js';
import { AppError, type ErrorCode } from '../domain/errors.js';
import { IntegrationError } from '../integrations/errors.js';
import { createProcessorClient, type ProcessorClient } from '../integrations/processor/index.js';
import { createStorefrontAClient, type StorefrontAClient } from '../integrations/storefront-a/client.js';
import { createStorefrontBClient, type StorefrontBClient } from '../integrations/storefront-b/client.js';
import { handoffProblem, type Handoff } from '../integrations/storefront-b/handoff.js';

// ---------------------------------------------------------------------------------------------------
// The labels (additional authenticated data, security/secrets.ts) binding each sealed secret to its owner and
// field: a value sealed for one merchant or field never opens as another's. Stored rows depend on these
// strings: never change one without re-sealing.

export const processorAad = {
  apiKey: (merchantId: string) => `${merchantId}:processor.apiKey`,
  webhookSecret: (merchantId: string) => `${merchantId}:processor.webhookSecret`,
};

export const storefrontAAad = {
  clientSecret: (merchantId: string) => `${merchantId}:storefrontA.clientSecret`,
  accessToken: (merchantId: string) => `${merchantId}:storefrontA.accessToken`,
  oauthCode: (merchantId: string) => `${merchantId}:storefrontA.oauthCode`,
  storefrontToken: (merchantId: string) => `${merchantId}:storefrontA.storefrontToken`,
  storefrontPrivateToken: (merchantId: string) => `${merchantId}:storefrontA.storefrontPrivateToken`,
};

export const storefrontBAad = {
  consumerKey: (merchantId: string) => `${merchantId}:storefrontB.consumerKey`,
  consumerSecret: (merchantId: string) => `${merchantId}:storefrontB.consumerSecret`,
};

/** A merchant's outgoing webhook endpoint: its signing secret, and the previous one during a rotation. */
export const webhookEndpointAad = {
  secret: (merchantId: string, endpointId: string) => `${merchantId}:webhookEndpoint.secret:${endpointId}`,
  previousSecret: (merchantId: string, endpointId: string) => `${merchantId}:webhookEndpoint.previousSecret:${endpointId}`,
};

/** The platform's own billing webhook endpoints (not a merchant's). */
export const platformBillingWebhookAad = (endpointId: string) => `platform:billing.webhookSecret:${endpointId}`;

// ---------------------------------------------------------------------------------------------------

export interface ConnectionDeps {
  config: Pick<Config, 'processor' | 'storefrontA'>;
  secrets: SecretBox;
  /** Checks a merchant-given store URL right before a call (the name may resolve elsewhere than when it was saved). */
  urlGuard?: UrlGuard;
  /** Per-call time-out of the clients (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A sealed secret opened, or the caller's failure (a value sealed under another SECRETS_KEY, or tampered with, never opens). */
export function openSecret(secrets: SecretBox, sealed: string, label: string, onFailure: { code: ErrorCode; message: string }): string {
  try {
    return secrets.decrypt(sealed, label);
  } catch {
    throw new AppError(onFailure.code, onFailure.message);
  }
}

const client = (deps: Pick<ConnectionDeps, 'timeoutMs' | 'fetch'>) => ({ timeoutMs: deps.timeoutMs, fetch: deps.fetch });

// ---------------------------------------------------------------------------------------------------
// Processor

/** Where the processor delivers a merchant's payment events (registered at connect, served by api/routes/webhooks). */
export const PROCESSOR_WEBHOOK_PATH = '/webhooks/processor/payment-update';

/** The processor client of a key sealed for `merchantId` (a connection's, or a connection attempt's). */
export function processorClientOf(deps: ConnectionDeps, merchantId: string, apiKeyEnc: string): ProcessorClient {
  const apiKey = openSecret(deps.secrets, apiKeyEnc, processorAad.apiKey(merchantId), {
    code: 'INTERNAL_ERROR',
    message: 'The stored processor API key cannot be read: connect the processor again',
  });
  return createProcessorClient({ apiKey, baseUrl: deps.config.processor.apiUrl, ...client(deps) });
}

/** The processor client of the platform's own account (plan billing), with the configured key. */
export function platformProcessorClient(deps: ConnectionDeps, apiKey: string | undefined): ProcessorClient {
  if (!apiKey) throw new AppError('NOT_READY', 'Platform billing is not configured (PLATFORM_PROCESSOR_API_KEY)');
  return createProcessorClient({ apiKey, baseUrl: deps.config.processor.apiUrl, ...client(deps) });
}

export interface ConnectedProcessor {
  client: ProcessorClient;
  businessId: string;
  productId: string;
}

/** The merchant's connected processor, ready to take payments; CONFLICT when it is not connected. */
export async function processorClientFor(deps: ConnectionDeps & { db: Db }, merchantId: string): Promise<ConnectedProcessor> {
  const row = await deps.db.processorConnection.findUnique({ where: { merchantId } });
  if (!row || row.status !== 'CONNECTED' || !row.productId || !row.businessId) {
    throw new AppError('CONFLICT', 'This store cannot take card payments: its processor is not connected');
  }
  return { client: processorClientOf(deps, merchantId, row.apiKeyEnc), businessId: row.businessId, productId: row.productId };
}

// ---------------------------------------------------------------------------------------------------
// Stores

/**
 * The access the service asks for at install (docs/storefront-a.md): draft orders (the order, exactly once),
 * orders (COD status), themes (app embed status), markets (the web presences' domains: CORS origins), legal policies (the checkout footer's policy links), script tags (only to delete a legacy one) and the Storefront
 * API's cart and product reads.
 */
export const STOREFRONT_A_SCOPES: readonly string[] = ['write_draft_orders', 'write_orders', 'read_themes', 'read_markets', 'read_legal_policies', 'write_script_tags', 'unauthenticated_read_checkouts', 'unauthenticated_write_checkouts', 'unauthenticated_read_product_listings'];

/** The inputs of a storefront A connection row, current and pending (prisma's StorefrontAConnection fits). */
export interface StorefrontAInputsRow {
  shop: string;
  clientId: string;
  clientSecretEnc: string;
  pendingShop: string | null;
  pendingClientId: string | null;
  pendingClientSecretEnc: string | null;
}

/**
 * The inputs an OAuth install is for: new ones saved while a connection works (they wait for their install to
 * replace it), else the connection's own.
 */
export function installingInputs(row: StorefrontAInputsRow): { shop: string; clientId: string; clientSecretEnc: string; pending: boolean } {
  if (row.pendingShop && row.pendingClientId && row.pendingClientSecretEnc) {
    return { shop: row.pendingShop, clientId: row.pendingClientId, clientSecretEnc: row.pendingClientSecretEnc, pending: true };
  }
  return { shop: row.shop, clientId: row.clientId, clientSecretEnc: row.clientSecretEnc, pending: false };
}

/** The purpose of the short-lived token that hands an install from the dashboard to the OAuth redirect. */
export const STOREFRONT_A_INSTALL_PURPOSE = 'storefront-a-install';

export const NO_PENDING_INPUTS = { pendingShop: null, pendingClientId: null, pendingClientSecretEnc: null, pendingSince: null } as const;


export type StoreClient = StorefrontAClient | StorefrontBClient;

/** The Storefront API tokens of a connection (sealed): the private one an install makes, or an older install's public one. */
export interface StorefrontATokensEnc {
  storefrontPrivateTokenEnc?: string | null;
  storefrontTokenEnc?: string | null;
}

/**
 * The storefront A client of a shop with tokens sealed for `merchantId` (the connection's, or an install's): the
 * Admin API token, and the Storefront API token the install created (cart reads) when there is one.
 */
export function storefrontAClientOf(deps: ConnectionDeps & { maxThrottleWaitMs?: number }, merchantId: string, shop: string, accessTokenEnc: string, storefront: StorefrontATokensEnc = {}): StorefrontAClient {
  const unreadable = { code: 'CONFLICT' as const, message: 'The stored Shopify access token cannot be read: install the app again' };
  const accessToken = openSecret(deps.secrets, accessTokenEnc, storefrontAAad.accessToken(merchantId), unreadable);
  const storefrontPrivateToken = storefront.storefrontPrivateTokenEnc ? openSecret(deps.secrets, storefront.storefrontPrivateTokenEnc, storefrontAAad.storefrontPrivateToken(merchantId), unreadable) : undefined;
  const storefrontToken = !storefrontPrivateToken && storefront.storefrontTokenEnc ? openSecret(deps.secrets, storefront.storefrontTokenEnc, storefrontAAad.storefrontToken(merchantId), unreadable) : undefined;
  return createStorefrontAClient({ shop, accessToken, storefrontPrivateToken, storefrontToken, apiUrlTemplate: deps.config.storefrontA.apiTemplate, shopSuffix: deps.config.storefrontA.shopSuffix, maxThrottleWaitMs: deps.maxThrottleWaitMs, ...client(deps) });
}

/** A storefront B store URL in the form every comparison uses: origin + path without a trailing slash (no query, no fragment). */
export function normalizeStoreUrl(url: URL): string {
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** What a storefront B client is built from (a connection row, or the inputs of one being set up). */
export interface StorefrontBCredentials {
  storeUrl: string;
  consumerKeyEnc: string;
  consumerSecretEnc: string;
}

/** A storefront B REST key pair, opened. */
export interface StorefrontBKeys {
  consumerKey: string;
  consumerSecret: string;
}

/** The key pair of a storefront B connection, opened; `code` is the failure when it will not open. */
export function openStorefrontBKeys(deps: Pick<ConnectionDeps, 'secrets'>, merchantId: string, credentials: Omit<StorefrontBCredentials, 'storeUrl'>, code: ErrorCode): StorefrontBKeys {
  const unreadable = { code, message: 'The stored WooCommerce keys cannot be read: connect the store again' };
  return {
    consumerKey: openSecret(deps.secrets, credentials.consumerKeyEnc, storefrontBAad.consumerKey(merchantId), unreadable),
    consumerSecret: openSecret(deps.secrets, credentials.consumerSecretEnc, storefrontBAad.consumerSecret(merchantId), unreadable),
  };
}

/**
 * The storefront B client of keys sealed for `merchantId`, after the store URL passed the SSRF guard (when the
 * deps carry one; its calls then go through the guard's pinned transport, security/pinned-fetch.ts, unless the deps
 * bring a fetch of their own, and the guard's acceptance of the URL is reused for 30 s, checkPinned). A URL the guard refuses is the store's `rejected` (permanent); one that cannot be resolved or
 * reached now is `unavailable` (retried), as a store that is down. `opened`: the same keys already opened by the
 * caller (openStorefrontBKeys), so they are not decrypted twice.
 */
export async function storefrontBClientOf(deps: Omit<ConnectionDeps, 'config'>, merchantId: string, credentials: StorefrontBCredentials, opened?: StorefrontBKeys): Promise<StorefrontBClient> {
  // Through the guard's pinned transport, the guard's acceptance of the URL is reused for a few seconds (checkPinned).
  const pinned = deps.urlGuard && !deps.fetch ? deps.urlGuard : undefined;
  try {
    if (pinned) await checkPinned(pinned, credentials.storeUrl);
    else await deps.urlGuard?.check(credentials.storeUrl);
  } catch (err) {
    if (!(err instanceof UnsafeUrlError)) throw err;
    const transient = err.reason === 'unresolvable' || err.reason === 'timeout' || err.reason === 'unreachable';
    throw new IntegrationError('storefront-b', transient ? 'unavailable' : 'rejected', `The store URL ${credentials.storeUrl} cannot be used: ${err.message}`, { cause: err });
  }
  // Through the guard's pinned transport: each connection to the store goes to an address the guard accepts.
  const transport = pinned ? pinnedFetch(pinned) : deps.fetch;
  return createStorefrontBClient({ storeUrl: credentials.storeUrl, ...(opened ?? openStorefrontBKeys(deps, merchantId, credentials, 'CONFLICT')), ...client({ ...deps, fetch: transport }) });
}

/**
 * Proves a checkout handoff comes from the connected storefront B store: the plugin signs it with the secret
 * of the REST key the store is connected with (integrations/storefront-b/handoff.ts). UNAUTHORIZED otherwise,
 * also when the stored keys will not open. `keys`: the connection's key pair, or the caller's already opened one
 * (openStorefrontBKeys with UNAUTHORIZED).
 */
export function verifyStorefrontBHandoff(deps: Pick<ConnectionDeps, 'secrets'>, merchantId: string, keys: Omit<StorefrontBCredentials, 'storeUrl'> | StorefrontBKeys, handoff: Handoff): void {
  const opened = 'consumerSecret' in keys ? keys : openStorefrontBKeys(deps, merchantId, keys, 'UNAUTHORIZED');
  const problem = handoffProblem(handoff, opened);
  if (problem) throw new AppError('UNAUTHORIZED', `This checkout handoff is not signed by the connected store: ${problem}`);
}

/** The client of the merchant's connected store on `platform`; CONFLICT when that store is not connected. */
export async function storeClientFor(deps: ConnectionDeps & { db: Db }, merchantId: string, platform: 'STOREFRONT_A'): Promise<StorefrontAClient>;
export async function storeClientFor(deps: ConnectionDeps & { db: Db }, merchantId: string, platform: 'STOREFRONT_B'): Promise<StorefrontBClient>;
export async function storeClientFor(deps: ConnectionDeps & { db: Db }, merchantId: string, platform: 'STOREFRONT_A' | 'STOREFRONT_B'): Promise<StoreClient>;
export async function storeClientFor(deps: ConnectionDeps & { db: Db }, merchantId: string, platform: 'STOREFRONT_A' | 'STOREFRONT_B'): Promise<StoreClient> {
  if (platform === 'STOREFRONT_A') {
    const row = await deps.db.storefrontAConnection.findUnique({ where: { merchantId } });
    if (!row?.connected || !row.accessTokenEnc) throw new AppError('CONFLICT', 'Your Shopify shop is not connected (the app was uninstalled): reconnect it in your dashboard');
    return storefrontAClientOf(deps, merchantId, row.shop, row.accessTokenEnc, row);
  }
  const row = await deps.db.storefrontBConnection.findUnique({ where: { merchantId } });
  if (!row) throw new AppError('CONFLICT', 'Your WooCommerce store is not connected: connect it in your dashboard');
  return storefrontBClientOf(deps, merchantId, row);
}
