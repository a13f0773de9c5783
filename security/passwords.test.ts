import { describe, expect, it } from 'vitest';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from './passwords.js';
import { checkPasswordPolicy } from '../domain/merchant/password-policy.js';

describe('password hashing', () => {
  it('given a hashed password / when the same password is verified / it matches', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
  });

  it('given a hashed password / when another password is verified / it does not match', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('given the same password twice / the stored hashes differ (fresh salt)', async () => {
    expect(await hashPassword('same password here')).not.toBe(await hashPassword('same password here'));
  });

  it('given a password typed in another unicode normal form / it still matches', async () => {
    const stored = await hashPassword('caf\u00e9 au lait 42');
    expect(await verifyPassword('cafe\u0301 au lait 42', stored)).toBe(true);
  });

  it('given a malformed stored value / verifying returns false instead of throwing', async () => {
    const good = await hashPassword('correct horse battery staple');
    const [, n, r, p, salt, key] = good.split('$');
    const malformed = [
      '',
      'not a hash',
      `bcrypt$${n}$${r}$${p}$${salt}$${key}`,
      `scrypt$${n}$${r}$${p}$${salt}`,
      `scrypt$${n}$${r}$${p}$${salt}$${key}$extra`,
      `scrypt$1000$${r}$${p}$${salt}$${key}`, // N not a power of two
      `scrypt$${2 ** 30}$${r}$${p}$${salt}$${key}`, // would need 1 TiB
      `scrypt$${n}$0$${p}$${salt}$${key}`,
      `scrypt$${n}$${r}$-1$${salt}$${key}`,
      `scrypt$${n}$${r}$${p}$!!!$${key}`,
      `scrypt$${n}$${r}$${p}$${salt}$`,
      `scrypt$${n}$${r}$${p}$${salt}$AAAA`, // key too short to mean anything
    ];
    for (const stored of malformed) {
      expect(await verifyPassword('correct horse battery staple', stored)).toBe(false);
    }
  });

  it('given an unknown email / when login verifies against DUMMY_PASSWORD_HASH / it does the same work and fails', async () => {
    const stored = await hashPassword('the real password');
    const [real, dummy] = await Promise.all([
      verifyPassword('a wrong guess', stored),
      verifyPassword('a wrong guess', DUMMY_PASSWORD_HASH),
    ]);
    expect(real).toBe(false);
    expect(dummy).toBe(false);
    // Same parameters means the same cost; timings themselves are too noisy to assert on.
    expect(DUMMY_PASSWORD_HASH.split('$').slice(0, 4)).toEqual(stored.split('$').slice(0, 4));
  });
});

describe('password policy', () => {
  it('given a long, uncommon password / it is accepted', () => {
    expect(checkPasswordPolicy('violet-lantern-harbour')).toBeUndefined();
    expect(checkPasswordPolicy('violet-lantern-harbour', { email: 'ana@example.com' })).toBeUndefined();
  });

  it.each([
    ['too short', 'short1!', /at least 10/],
    ['too long', 'x1'.repeat(101), /at most 200/],
    ['one character repeated', 'aaaaaaaaaaaa', /single character/],
    ['a common password', 'password123', /commonly used/],
    ['a common password in other case', 'QwertyUiop', /commonly used/],
    ['all digits in order', '1234567890', /commonly used/],
  ])('given %s / it is refused with a message', (_case, password, message) => {
    expect(checkPasswordPolicy(password)).toMatch(message);
  });

  it('given the account email as the password / it is refused, whatever the case', () => {
    expect(checkPasswordPolicy('Ana.Smith@Example.com', { email: 'ana.smith@example.com' })).toMatch(/email/);
  });

  it('given emoji / length counts characters as the user sees them, not UTF-16 units', () => {
    expect(checkPasswordPolicy('🔒🔑🛒💳📦🚚🧾🎁🌍🪙')).toBeUndefined();
    expect(checkPasswordPolicy('🔒🔑🛒💳📦')).toMatch(/at least 10/); // 10 UTF-16 units, 5 characters
  });
});
