import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { signWebhook, verifyWebhookSignature } from './signature.js';
import { parseWebhookPayload } from './webhook.js';

const secret = 'whsec_0123456789abcdef0123456789abcdef';
const body = '{"id":"evt_1","event":"invoice_paid","data":{"id":"pay_1","metadata":{"checkout_session_token":"tok"}}}';

describe('webhook signatures', () => {
  it('given a body, when signed, then the signature is the lowercase hex HMAC-SHA256 of its bytes', () => {
    expect(signWebhook(secret, body)).toBe(createHmac('sha256', secret).update(body).digest('hex'));
    expect(signWebhook(secret, body)).toMatch(/^[0-9a-f]{64}$/);
    expect(signWebhook(secret, Buffer.from(body))).toBe(signWebhook(secret, body));
  });

  it('given any body and secret, when verified with its own signature, then it verifies', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.uint8Array(), (key, bytes) => {
        const raw = Buffer.from(bytes);
        return verifyWebhookSignature(key, raw, signWebhook(key, raw));
      }),
    );
  });

  it('given a tampered body, a wrong secret or another signature, when verified, then it fails', () => {
    const signature = signWebhook(secret, body);
    expect(verifyWebhookSignature(secret, body.replace('invoice_paid', 'payment_failed'), signature)).toBe(false);
    expect(verifyWebhookSignature(secret, `${body} `, signature)).toBe(false);
    expect(verifyWebhookSignature('whsec_other', body, signature)).toBe(false);
    expect(verifyWebhookSignature(secret, body, signWebhook(secret, 'other'))).toBe(false);
  });

  it('given a missing, empty, truncated, over-long or non-hex header, when verified, then it fails without throwing', () => {
    const signature = signWebhook(secret, body);
    for (const header of [undefined, '', signature.slice(0, 63), `${signature}00`, `${signature.slice(0, 63)}g`, `sha256=${signature}`, 'zz'.repeat(32)]) {
      expect(verifyWebhookSignature(secret, body, header)).toBe(false);
    }
  });

  it('given an empty secret, when verified, then nothing verifies', () => {
    expect(verifyWebhookSignature('', body, signWebhook('', body))).toBe(false);
  });

  it('given surrounding whitespace or upper-case hex, when verified, then it still verifies', () => {
    const signature = signWebhook(secret, body);
    expect(verifyWebhookSignature(secret, body, ` ${signature.toUpperCase()}\n`)).toBe(true);
  });
});

describe('webhook payload', () => {
  it('given the minimal shape of the contract, when parsed, then it is accepted and extra fields are tolerated', () => {
    expect(parseWebhookPayload(body)?.data.metadata.checkout_session_token).toBe('tok');
    expect(parseWebhookPayload('{"event":"payment.failed","data":{"id":"pay_2","metadata":{},"extra":1},"more":true}')?.event).toBe('payment.failed');
  });

  it('given a body that is not JSON or lacks data.id or metadata, when parsed, then it is undefined', () => {
    for (const raw of ['not json', '{"event":"invoice_paid"}', '{"event":"invoice_paid","data":{"metadata":{}}}', '{"event":"x","data":{"id":"p"}}']) {
      expect(parseWebhookPayload(raw)).toBeUndefined();
    }
  });
});
