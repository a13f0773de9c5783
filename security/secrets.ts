// Encryption of secrets at rest (processor keys, store access tokens, consumer and webhook secrets) with
// AES-256-GCM. The sealed form is plain ASCII so it fits any text column, and starts with a version so a
// later key rotation or algorithm change can tell old values from new ones.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12; // the size GCM is specified for; random per call, never reused with one key
const TAG_BYTES = 16;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export interface SecretBox {
  /** Seals `plain`. `aad` (e.g. `${merchantId}:processorKey`) binds the value to where it is stored. */
  encrypt(plain: string, aad?: string): string;
  /** Opens a sealed value; throws SecretDecryptionError rather than ever returning garbage. */
  decrypt(sealed: string, aad?: string): string;
}

/** A sealed value that is malformed, truncated, tampered with, or sealed with another key or context. */
export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
}

export function createSecretBox(keyBase64: string): SecretBox {
  const trimmed = keyBase64.trim();
  const key = BASE64.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) {
    throw new Error(
      `SECRETS_KEY must be ${KEY_BYTES} bytes encoded in base64 (got ${key.length} bytes); ` +
        `generate one with: node -e "console.log(crypto.randomBytes(32).toString('base64'))"`,
    );
  }

  return {
    encrypt(plain, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return `${VERSION}.${iv.toString('base64url')}.${tag.toString('base64url')}.${ciphertext.toString('base64url')}`;
    },

    decrypt(sealed, aad) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) {
        throw new SecretDecryptionError(`sealed secret is not in the ${VERSION} format`);
      }
      const [iv, tag, ciphertext] = parts.slice(1).map(decodeExactly);
      if (iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || !ciphertext) {
        throw new SecretDecryptionError('sealed secret is malformed or truncated');
      }
      try {
        const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
        if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch (err) {
        throw new SecretDecryptionError('sealed secret failed authentication: tampered, or sealed with another key or context', { cause: err });
      }
    },
  };
}

// Node's decoder skips invalid characters and ignores the unused low bits of the last one, so several
// strings decode to the same bytes; accepting only the canonical spelling makes every edit detectable.
function decodeExactly(part: string): Buffer | undefined {
  if (!BASE64URL.test(part)) return undefined;
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}
