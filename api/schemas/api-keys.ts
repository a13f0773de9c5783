// Merchant API keys as the API takes and answers them (api/routes/merchant/api-keys.ts). Pure zod, so the dashboard
// takes its types from here.
import { z } from 'zod';
import { ALL_API_KEY_SCOPES, API_KEY_MODES, MAX_ROLL_OVERLAP_SECONDS, DEFAULT_ROLL_OVERLAP_SECONDS } from '../../domain/merchant/api-keys.js';
import { trimmed } from './text.js';

export const apiKeyScope = z
  .enum(ALL_API_KEY_SCOPES as [string, ...string[]])
  .describe('<resource>:read or <resource>:write (write implies read); the resources and the routes each covers: docs/api.md');

export const apiKeyIdParams = z.object({ id: z.uuid('must be an API key id') });

export const apiKeyCreate = z
  .strictObject({
    name: trimmed(/^[^\x00-\x1f\x7f]+$/, 'enter a name of 1-100 characters without control characters', { max: 100 })
      .describe('What the key is for (e.g. "ERP sync"): 1-100 characters, no control characters'),
    scopes: z.array(apiKeyScope).min(1, 'give the key at least one scope').max(ALL_API_KEY_SCOPES.length).describe('What the key may do; duplicates are merged, and write covers read'),
    expiresAt: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .describe('When the key stops working; must be in the future. Left out or null: no expiry'),
  })
  .meta({ id: 'ApiKeyCreate' });

export const apiKeyRoll = z
  .strictObject({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROLL_OVERLAP_SECONDS)
      .optional()
      .describe(`How long the old key keeps working beside the new one: 0 (it stops at once) to ${MAX_ROLL_OVERLAP_SECONDS} (7 days); default ${DEFAULT_ROLL_OVERLAP_SECONDS} (24 hours)`),
  })
  // Fastify hands a request without a body over as null: the body may be left out entirely.
  .nullish()
  .describe('May be left out (no body): the old key then works for 24 more hours')
  .meta({ id: 'ApiKeyRoll' });

export const apiKeyView = z
  .object({
    id: z.string(),
    name: z.string(),
    mode: z.enum(API_KEY_MODES).describe('live: issued and accepted by production; test: by a deployment with the sandbox'),
    prefix: z.string().describe('The key\'s prefix and first characters (ck_test_AbCdEf), to tell keys apart; the secret is never shown again'),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'expiring', 'expired', 'revoked']).describe('expiring: rolled, and working until expiresAt'),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable().describe('Updated at most once a minute'),
    expiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    rolledAt: z.string().nullable(),
    rolledToId: z.string().nullable().describe('The key that replaced this one in a roll'),
  })
  .meta({ id: 'ApiKey' });

export const apiKeyCreated = z
  .object({
    key: apiKeyView,
    secret: z.string().describe('The whole key, shown this once: the API never answers it again. Keep it in a secret store'),
  })
  .meta({ id: 'ApiKeyCreated' });

export const apiKeyRolled = z
  .object({
    key: apiKeyView.describe('The new key'),
    secret: z.string().describe('The new key\'s whole secret, shown this once'),
    previous: apiKeyView.describe('The old key: it works until its expiresAt'),
  })
  .meta({ id: 'ApiKeyRolled' });

export const apiKeyList = z.object({ items: z.array(apiKeyView) }).meta({ id: 'ApiKeyList' });
