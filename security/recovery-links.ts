// The signed links of a recovery reminder (docs/recovery.md): "restore my checkout" and "unsubscribe". Each is the
// session token with an HMAC-SHA256 over purpose and token, keyed by a key derived from SECRETS_KEY, so nobody can
// unsubscribe or restore another shopper's session by guessing, and nothing needs storing. Compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type RecoveryLinkPurpose = 'restore' | 'unsubscribe';

const keyOf = (secretsKey: string) => createHmac('sha256', Buffer.from(secretsKey.trim(), 'base64')).update('checkout-recovery-links/v1').digest();

export function recoveryLinkSignature(secretsKey: string, purpose: RecoveryLinkPurpose, token: string): string {
  return createHmac('sha256', keyOf(secretsKey)).update(`${purpose}:${token}`).digest('base64url');
}

export function verifyRecoveryLink(secretsKey: string, purpose: RecoveryLinkPurpose, token: string, signature: string): boolean {
  const expected = Buffer.from(recoveryLinkSignature(secretsKey, purpose, token));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
