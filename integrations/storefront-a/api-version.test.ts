import { afterEach, describe, expect, it, vi } from 'vitest';
import { STOREFRONT_A_API_VERSION, supportedStableVersions } from './api-version.js';

describe('the pinned Shopify API version', () => {
  afterEach(() => vi.useRealTimers());

  it('is inside the window Shopify supports today (else requests silently fall forward to another version)', () => {
    expect(supportedStableVersions()).toContain(STOREFRONT_A_API_VERSION);
  });

  it('would fail a year after its release: the check reads the real clock', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2027-10-02T00:00:00Z'));
    expect(supportedStableVersions()).not.toContain(STOREFRONT_A_API_VERSION);
    vi.setSystemTime(new Date('2026-11-25T00:00:00Z'));
    expect(supportedStableVersions()).not.toContain('2025-01');
  });
});
