// verifyWebhook on deliveries signed as the Standard Webhooks specification says (signed here with the
// specification's own library, not with the SDK): what passes, what is refused, and the shapes of headers a
// merchant's server hands it (Fetch Headers, Node's lower-case record, arrays).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../src/index.js';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const event = { id: 'evt_1', type: 'webhook.test', created_at: '2026-11-27T10:00:00.000Z', data: { endpoint_id: 'we_1', message: 'hello' } };

function delivery(secrets: string[], body = JSON.stringify(event), at = new Date()) {
  const id = 'msg_2Qx';
  const signature = secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
  return { body, headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature } };
}

describe('verifyWebhook', () => {
  it('given a delivery signed with the endpoint secret / it answers the event, from a string, bytes, Fetch Headers or Node headers', () => {
    const key = secret();
    const { body, headers } = delivery([key]);
    expect(verifyWebhook(body, headers, key)).toEqual(event);
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), key).type).toBe('webhook.test');
    expect(verifyWebhook(body, { 'Webhook-Id': headers['webhook-id'], 'webhook-timestamp': [headers['webhook-timestamp']], 'webhook-signature': headers['webhook-signature'] }, key).id).toBe('evt_1');
  });

  it('given a rotation / a delivery signed with old and new secrets verifies with either; one signed with the new alone needs the new one among those given', () => {
    const [old, next] = [secret(), secret()];
    const both = delivery([next, old]);
    expect(verifyWebhook(both.body, both.headers, old).id).toBe('evt_1');
    expect(verifyWebhook(both.body, both.headers, next).id).toBe('evt_1');
    const after = delivery([next]);
    expect(verifyWebhook(after.body, after.headers, [old, next]).id).toBe('evt_1');
    expect(() => verifyWebhook(after.body, after.headers, old)).toThrow(WebhookVerificationError);
  });

  it('given a changed body, another secret, a stale timestamp or missing headers / it throws WebhookVerificationError', () => {
    const key = secret();
    const { body, headers } = delivery([key]);
    expect(() => verifyWebhook(body.replace('hello', 'hullo'), headers, key)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, headers, secret())).toThrow(WebhookVerificationError);
    const stale = delivery([key], JSON.stringify(event), new Date(Date.now() - 6 * 60 * 1000));
    expect(() => verifyWebhook(stale.body, stale.headers, key)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, { 'webhook-id': headers['webhook-id'] }, key)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, headers, [])).toThrow(TypeError);
  });
});
