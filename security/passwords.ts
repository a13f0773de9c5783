// Merchant passwords: scrypt from node:crypto (memory-hard, no native dependency), a stored format that
// carries its own parameters so they can be raised later without invalidating existing hashes, and a
// the policy (domain/merchant/password-policy.ts) is pure, so the API's schemas and the web app share it.
import { randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 2 ** 15;
const R = 8;
const P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 64;
// scrypt needs 128·N·r bytes (32 MiB here), exactly Node's default ceiling; allow headroom above it.
const maxmemFor = (n: number, r: number) => 2 * 128 * n * r;
const PARAMS: ScryptOptions = { N, r: R, p: P, maxmem: maxmemFor(N, R) };
// Stored hashes come from our own database, but bound the parameters anyway so one corrupted row
// cannot make a login allocate gigabytes or run for minutes.
const MAX_MEMORY = 256 * 1024 * 1024;
const MAX_P = 16;

function derive(plain: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(normalize(plain), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

// The same password typed on different keyboards can arrive as different code point sequences (é as
// one or two code points); NFC makes them one.
const normalize = (plain: string) => plain.normalize('NFC');

const format = (salt: Buffer, key: Buffer) => `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;

export async function hashPassword(plain: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return format(salt, await derive(plain, salt, KEY_BYTES, PARAMS));
}

/** True when `plain` matches `stored`; false for a wrong password and for anything malformed. */
export async function verifyPassword(plain: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  const { n, r, p, salt, key } = parsed;
  const candidate = await derive(plain, salt, key.length, { N: n, r, p, maxmem: maxmemFor(n, r) }).catch(() => undefined);
  return candidate !== undefined && timingSafeEqual(candidate, key);
}

const INTEGER = /^[1-9][0-9]{0,7}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// 0 for anything malformed: every valid parameter is at least 1.
const toInteger = (text: string | undefined) => (text !== undefined && INTEGER.test(text) ? Number(text) : 0);
const toBytes = (text: string | undefined) => (text !== undefined && BASE64.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0));

function parseStored(stored: string) {
  const [scheme, nText, rText, pText, saltText, keyText, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || rest.length > 0) return undefined;
  const n = toInteger(nText);
  const r = toInteger(rText);
  const p = toInteger(pText);
  const salt = toBytes(saltText);
  const key = toBytes(keyText);
  const nIsPowerOfTwo = n > 1 && (n & (n - 1)) === 0;
  if (!nIsPowerOfTwo || !r || !p || p > MAX_P || 128 * n * r > MAX_MEMORY) return undefined;
  if (salt.length < 8 || key.length < 16 || key.length > 128) return undefined;
  return { n, r, p, salt, key };
}

/**
 * A real hash of a random password nobody knows: login verifies against it when the email is unknown,
 * so "no such account" costs the same time as "wrong password" and does not reveal which emails exist.
 */
export const DUMMY_PASSWORD_HASH: string = (() => {
  const salt = randomBytes(SALT_BYTES);
  return format(salt, scryptSync(randomBytes(32).toString('base64'), salt, KEY_BYTES, PARAMS));
})();
