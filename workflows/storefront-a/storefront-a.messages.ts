// Inputs, results and failure mapping of the storefront A workflows (install, script tag, webhooks),
// shared by the workflows and the API that starts them. Deterministic: @temporalio/workflow and domain/ only.
import { asCallerAnswer, type Answer } from '../failures.js';


export interface InstallStorefrontAInput {
  merchantId: string;
  shop: string;
  /**
   * The OAuth code of the callback, sealed (security/secrets.ts, aad `${merchantId}:storefrontA.oauthCode`):
   * the code is a short-lived secret, and workflow history must hold only its ciphertext.
   */
  sealedCode: string;
}

export interface InstallStorefrontAResult {
  scopes: string[];
  /** A legacy script tag left in the shop (null: none; install removes ours). */
  scriptTagId: string | null;
  installedAt: string;
  /** Whether the app embed is on in the published theme, and the theme editor link that turns it on. */
  embedActive: boolean;
  activationUrl: string;
}

/** What script-tag/status reports: `installed` = our app embed is on in the published theme. */
export interface AppEmbedStatus {
  installed: boolean;
  /** A legacy script tag of ours still in the shop (script tags stop running on 2027-03-01). */
  scriptTagId: string | null;
  src: string;
  checkedAt: string;
  /** The theme editor deep link that activates the app embed (the merchant saves there). */
  activationUrl: string;
  themeName: string | null;
}

export interface ProcessStorefrontAWebhookResult {
  topic: string;
  /** False when the delivery had already been processed (a redelivery or a re-run). */
  applied: boolean;
  reportEmail: 'SENT' | 'ALREADY_SENT' | 'FAILED' | null;
}

const DEFAULTS: Partial<Record<string, Answer>> = {
  'storefront-a.unauthorized': { code: 'CONFLICT', message: 'The store refused our access (app uninstalled, token revoked or a scope missing): install the app again' },
  'storefront-a.not_found': { code: 'UPSTREAM_ERROR', message: 'The store does not know this shop or resource' },
  'storefront-a.rejected': { code: 'UPSTREAM_ERROR', message: 'The store refused the request' },
  'storefront-a.invalid_response': { code: 'UPSTREAM_ERROR', message: 'The store answered something we could not read' },
  'storefront-a.rate_limited': { code: 'UPSTREAM_ERROR', message: 'The store is rate limiting us: try again in a minute' },
  'storefront-a.unavailable': { code: 'UPSTREAM_ERROR', message: 'The store is unavailable: try again in a minute' },
};

/**
 * Turns an activity failure into a workflow failure whose type is one of our error codes, so the API
 * answers `{ error, code }` with the right status (api/plugins/errors.ts reads the type). `overrides` words a
 * failure type for the step that failed.
 */
export function toStorefrontAFailure(err: unknown, overrides: Partial<Record<string, Answer>> = {}): unknown {
  return asCallerAnswer(err, {
    byType: { ...DEFAULTS, ...overrides },
    timeout: { code: 'UPSTREAM_ERROR', message: 'The store did not answer in time: try again in a minute' },
    otherwise: { code: 'UPSTREAM_ERROR', message: 'The store call failed' },
  });
}
