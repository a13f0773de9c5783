// Issuing an API key's secret and finding a key by it. The secret is 43 base62 characters from the CSPRNG (256 bits)
// after a `ck_live_` / `ck_test_` prefix; base62 so that a double click selects the whole key.
//
// Only SHA-256(key) is stored, and a request's key is found by that hash (a unique index). A fast unsalted hash is
// right for a 256-bit random secret, unlike a password: there is no dictionary to try, so a slow or salted hash would
// add cost to every request and no protection, and a leaked table still yields no usable key. No server-side pepper
// either: it would tie every key to a server secret whose rotation would break them all, for no gain at this entropy.
import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_DISPLAY_CHARS, API_KEY_SECRET_LENGTH, apiKeyPrefix, type ApiKeyMode } from '../domain/merchant/api-keys.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters, uniform: bytes of 248 and above are drawn again (248 = 4 × 62). */
function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const hashApiKey = (key: string): Uint8Array<ArrayBuffer> => new Uint8Array(createHash('sha256').update(key, 'utf8').digest());

export interface IssuedApiKey {
  /** The whole key: shown to the merchant once, never stored. */
  secret: string;
  displayPrefix: string;
  secretHash: Uint8Array<ArrayBuffer>;
}

export function issueApiKey(mode: ApiKeyMode): IssuedApiKey {
  const body = base62(API_KEY_SECRET_LENGTH);
  const secret = `${apiKeyPrefix(mode)}${body}`;
  return { secret, displayPrefix: `${apiKeyPrefix(mode)}${body.slice(0, API_KEY_DISPLAY_CHARS)}`, secretHash: hashApiKey(secret) };
}
