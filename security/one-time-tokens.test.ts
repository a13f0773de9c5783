import { describe, expect, it } from 'vitest';
import { hashOneTimeToken, newOneTimeToken } from './one-time-tokens.js';

describe('one-time tokens', () => {
  it('given a new token / it is URL-safe, at least 43 characters, and its hash is what the link maps to', () => {
    const { token, hash } = newOneTimeToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashOneTimeToken(token)).toBe(hash);
  });

  it('given the same token twice / hashing gives the same value', () => {
    expect(hashOneTimeToken('abc')).toBe(hashOneTimeToken('abc'));
    expect(hashOneTimeToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('given two new tokens / they differ, and so do their hashes', () => {
    const [a, b] = [newOneTimeToken(), newOneTimeToken()];
    expect(a.token).not.toBe(b.token);
    expect(a.hash).not.toBe(b.hash);
  });

  it('given a stored hash / it does not contain the token', () => {
    const { token, hash } = newOneTimeToken();
    expect(hash).not.toContain(token);
    expect(hashOneTimeToken(`${token}x`)).not.toBe(hash);
  });
});
