import { describe, expect, it } from 'vitest';
import { pixelIdProblem, PIXEL_PLATFORMS, purchaseEventId, type PixelPlatform } from './pixels.js';

const VALID: Record<PixelPlatform, string[]> = {
  meta: ['123456789012345', '1234567890123456'],
  ga4: ['G-AB12CD34EF', 'G-1234567'],
  google_ads: ['AW-123456789', 'AW-12345678901/AbC-D_efG12'],
  tiktok: ['C4ABCDEF1234567890GH'],
  pinterest: ['2612345678901'],
  snapchat: ['1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d'],
};
const INVALID: Record<PixelPlatform, string[]> = {
  meta: ['12345678901234', '12345678901234567', 'G-AB12CD34EF', '12345678901234a'],
  ga4: ['UA-12345-1', 'g-ab12cd34ef', 'G-', 'AW-123456789'],
  google_ads: ['AW-12345', 'G-AB12CD34EF', 'AW-123456789/x'],
  tiktok: ['c4abcdef1234567890gh', 'C4ABCDEF', '123456789012345'],
  pinterest: ['261234567890', 'abc'],
  snapchat: ['1a2b3c4d5e6f4a7b8c9d0e1f2a3b4c5d', 'not-a-uuid'],
};

describe('tracking pixel ids', () => {
  it.each(PIXEL_PLATFORMS)('given %s / its own id format passes and others fail with a hint', (platform) => {
    for (const id of VALID[platform]) expect(pixelIdProblem(platform, id), id).toBeUndefined();
    for (const id of INVALID[platform]) expect(pixelIdProblem(platform, id), id).toMatch(new RegExp(`not a ${platform} id`));
  });

  it('the purchase event id is the session token, so a reloaded confirmation page counts once', () => {
    expect(purchaseEventId('cs_abc')).toBe('cs_abc');
  });
});
