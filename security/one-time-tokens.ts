// Single-use tokens for password reset and email verification links. The link carries the token; the
// database stores only its hash, so a leaked table holds no working links. A fast hash is enough (no
// salt, no scrypt): the token has 256 random bits, so there is nothing to guess or precompute.
import { createHash, randomBytes } from 'node:crypto';

export interface OneTimeToken {
  /** 32 random bytes, base64url: goes in the link, never stored. */
  token: string;
  /** sha256 hex of the token: stored, and looked up when the link is used. */
  hash: string;
}

export function newOneTimeToken(): OneTimeToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashOneTimeToken(token) };
}

export function hashOneTimeToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
