import { describe, expect, it } from 'vitest';
import { apiKeyModeOf, apiKeyStatus, grants, normalizeScopes } from './api-keys.js';
import { routeKeyPolicy } from './route-rights.js';

describe('API key scopes', () => {
  it('write implies read, never the reverse, and never another resource', () => {
    expect(grants(['orders:write'], 'orders:read')).toBe(true);
    expect(grants(['orders:write'], 'orders:write')).toBe(true);
    expect(grants(['orders:read'], 'orders:write')).toBe(false);
    expect(grants(['orders:write'], 'commerce:read')).toBe(false);
    expect(grants([], 'stats:read')).toBe(false);
  });

  it('are stored one per resource, write winning, in the table\'s order', () => {
    expect(normalizeScopes(['stats:read', 'orders:read', 'orders:write', 'stats:read', 'account:read'])).toEqual(['account:read', 'orders:write', 'stats:read']);
  });

  it('follow the method: GET and HEAD read, everything else writes; a route nobody declared is unmapped', () => {
    expect(routeKeyPolicy('GET', '/api/merchant/discounts/:id')).toEqual({ kind: 'scope', scope: 'commerce:read' });
    expect(routeKeyPolicy('HEAD', '/api/merchant/discounts/:id')).toEqual({ kind: 'scope', scope: 'commerce:read' });
    expect(routeKeyPolicy('delete', '/api/merchant/discounts/:id')).toEqual({ kind: 'scope', scope: 'commerce:write' });
    expect(routeKeyPolicy('PATCH', '/api/merchant/webhooks/endpoints/:id')).toEqual({ kind: 'scope', scope: 'webhooks:write' });
    expect(routeKeyPolicy('GET', '/api/merchant/webhooks-other')).toEqual({ kind: 'unmapped' });
    expect(routeKeyPolicy('POST', '/api/merchant/me')).toEqual({ kind: 'unmapped' });
    expect(routeKeyPolicy('GET', '/api/merchant/api-keys/:id')).toEqual({ kind: 'session-only' });
  });
});

describe('API key format and status', () => {
  it('reads the mode from a well-formed key only', () => {
    expect(apiKeyModeOf(`ck_live_${'a'.repeat(43)}`)).toBe('live');
    expect(apiKeyModeOf(`ck_test_${'Z9'.repeat(21)}x`)).toBe('test');
    expect(apiKeyModeOf(`ck_test_${'a'.repeat(42)}`)).toBeUndefined();
    expect(apiKeyModeOf(`ck_prod_${'a'.repeat(43)}`)).toBeUndefined();
    expect(apiKeyModeOf(`ck_test_${'a'.repeat(42)}-`)).toBeUndefined();
  });

  it('is revoked before expired, expired before expiring', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const past = new Date('2025-12-31T00:00:00Z');
    const future = new Date('2026-01-02T00:00:00Z');
    expect(apiKeyStatus({ revokedAt: past, expiresAt: past, rolledToId: 'x' }, now)).toBe('revoked');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: past, rolledToId: 'x' }, now)).toBe('expired');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: future, rolledToId: 'x' }, now)).toBe('expiring');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: future, rolledToId: null }, now)).toBe('active');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: null }, now)).toBe('active');
  });
});
