import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretDecryptionError } from './secrets.js';

const newKey = () => randomBytes(32).toString('base64');
const box = createSecretBox(newKey());
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';

describe('secrets at rest', () => {
  it('given any unicode text / when sealed then opened / it comes back unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.option(fc.string({ unit: 'binary' }), { nil: undefined }), (plain, aad) => {
        expect(box.decrypt(box.encrypt(plain, aad), aad)).toBe(plain);
      }),
    );
  });

  it('given the same value sealed twice / the sealed texts differ (fresh IV each time)', () => {
    expect(box.encrypt('sk_live_same')).not.toBe(box.encrypt('sk_live_same'));
  });

  it('given a secret / when sealed / the result is versioned ASCII that does not contain the plaintext', () => {
    const plain = 'sk_live_51HxYzSuperSecretProcessorKey';
    const sealed = box.encrypt(plain);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(plain);
    expect(sealed).not.toContain(Buffer.from(plain).toString('base64url'));
  });

  it('given a sealed value / when any character is changed / opening it throws SecretDecryptionError', () => {
    const sealed = box.encrypt('whsec_abc123', 'merchant-1:webhookSecret');
    fc.assert(
      fc.property(fc.nat({ max: sealed.length - 1 }), fc.constantFrom(...ALPHABET), (at, ch) => {
        fc.pre(sealed[at] !== ch);
        const tampered = sealed.slice(0, at) + ch + sealed.slice(at + 1);
        expect(() => box.decrypt(tampered, 'merchant-1:webhookSecret')).toThrow(SecretDecryptionError);
      }),
    );
  });

  it('given a sealed value / when truncated at any length / opening it throws SecretDecryptionError', () => {
    const sealed = box.encrypt('shpat_0123456789abcdef');
    for (let length = 0; length < sealed.length; length++) {
      expect(() => box.decrypt(sealed.slice(0, length))).toThrow(SecretDecryptionError);
    }
  });

  it('given a value sealed with another key / opening it throws SecretDecryptionError', () => {
    const sealed = createSecretBox(newKey()).encrypt('ck_consumer_key');
    expect(() => box.decrypt(sealed)).toThrow(SecretDecryptionError);
  });

  it('given a value sealed for one row and field / when opened for another / it throws SecretDecryptionError', () => {
    const sealed = box.encrypt('cs_consumer_secret', 'merchant-1:consumerSecret');
    expect(box.decrypt(sealed, 'merchant-1:consumerSecret')).toBe('cs_consumer_secret');
    expect(() => box.decrypt(sealed, 'merchant-2:consumerSecret')).toThrow(SecretDecryptionError);
    expect(() => box.decrypt(sealed, 'merchant-1:webhookSecret')).toThrow(SecretDecryptionError);
    expect(() => box.decrypt(sealed)).toThrow(SecretDecryptionError);
  });

  it('given text that was never sealed / opening it throws SecretDecryptionError', () => {
    for (const junk of ['', 'plaintext', 'v2.a.b.c', 'v1...', 'v1.a.b.c.d']) {
      expect(() => box.decrypt(junk)).toThrow(SecretDecryptionError);
    }
  });

  it('given a key that is not 32 bytes of base64 / creating the box fails naming SECRETS_KEY', () => {
    for (const bad of ['', Buffer.alloc(16).toString('base64'), Buffer.alloc(33).toString('base64'), 'not base64 at all!', 'x'.repeat(44)]) {
      expect(() => createSecretBox(bad)).toThrow(/SECRETS_KEY/);
    }
  });
});
