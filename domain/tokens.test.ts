import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isCheckoutToken, isPreviewToken, isSessionToken } from './tokens.js';

const body = 'aZ09_-'.repeat(5) + 'xY'; // 32 characters

describe('session tokens', () => {
  it('accepts checkout and preview tokens of 32 base64url characters', () => {
    expect(isCheckoutToken(`cs_${body}`)).toBe(true);
    expect(isPreviewToken(`prev_${body}`)).toBe(true);
    expect(isSessionToken(`cs_${body}`) && isSessionToken(`prev_${body}`)).toBe(true);
  });
  it.each([`cs_${body.slice(1)}`, `cs_${body}x`, `cs_${body.slice(1)}+`, `cs_${body.slice(1)}/`, `cs_${body.slice(1)}=`, `CS_${body}`, `prev_${body}`, body, '', ` cs_${body}`])(
    'refuses %j as a checkout token',
    (token) => expect(isCheckoutToken(token)).toBe(false),
  );
  it('refuses non-strings and tokens of the other kind', () => {
    expect(isPreviewToken(`cs_${body}`)).toBe(false);
    expect(isCheckoutToken(undefined)).toBe(false);
    expect(isSessionToken(42)).toBe(false);
  });
  it('accepts any 32 characters of the base64url alphabet', () => {
    const alphabet = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];
    fc.assert(fc.property(fc.array(fc.constantFrom(...alphabet), { minLength: 32, maxLength: 32 }), (chars) => {
      expect(isCheckoutToken(`cs_${chars.join('')}`)).toBe(true);
    }));
  });
});
