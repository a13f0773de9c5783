// The three signature schemes a processor delivery may carry (docs/processor.md, "Webhooks we receive"), judged
// without a server: Whop's x-whop-signature (endpoints created through POST /webhooks), Standard Webhooks
// (dashboard-created endpoints) and the spec's X-Processor-Signature.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { claimedCompany, signSpecWebhook, signWhopWebhook, verifyDelivery } from './webhook.js';

const secret = 'ws_8c1f0b4e2a9d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a291807';
const body = Buffer.from(JSON.stringify({ id: 'msg_2tQpXk9', api_version: 'v1', type: 'payment.succeeded', company_id: 'biz_a', data: { id: 'pay_1' } }));
const now = Date.UTC(2026, 7, 10, 12, 0, 0);
const nowS = Math.floor(now / 1000);

describe('Whop\'s x-whop-signature', () => {
  it('given a body signed t=<now>,v1=<hex HMAC of "t.body"> with the ws_ secret string / it verifies as x-whop-signature', () => {
    const header = signWhopWebhook(secret, nowS, body);
    // The key is the secret's own UTF-8 bytes (Whop's whop-sandbox notes: "keyed with the raw ws_ secret").
    const byHand = createHmac('sha256', secret).update(`${nowS}.${body.toString('utf8')}`).digest('hex');
    expect(header).toBe(`t=${nowS},v1=${byHand}`);
    expect(verifyDelivery([secret], body, { 'x-whop-signature': header }, now)).toBe('x-whop-signature');
  });

  it('given a signature keyed with the base64-decoded secret (the Standard Webhooks reading) / it does not verify', () => {
    const decodedKey = Buffer.from(secret, 'base64');
    const header = `t=${nowS},v1=${createHmac('sha256', decodedKey).update(`${nowS}.`).update(body).digest('hex')}`;
    expect(verifyDelivery([secret], body, { 'x-whop-signature': header }, now)).toBeNull();
  });

  it('given a timestamp more than 5 minutes old or ahead / it does not verify; within 5 minutes it does', () => {
    for (const [offset, ok] of [[-301, false], [301, false], [-300, true], [299, true]] as const) {
      const header = signWhopWebhook(secret, nowS + offset, body);
      expect(verifyDelivery([secret], body, { 'x-whop-signature': header }, now), `offset ${offset}`).toBe(ok ? 'x-whop-signature' : null);
    }
  });

  it('given one byte of the body changed, another secret, or a malformed header / it does not verify', () => {
    const header = signWhopWebhook(secret, nowS, body);
    const tampered = Buffer.from(body.toString('utf8').replace('pay_1', 'pay_2'));
    expect(verifyDelivery([secret], tampered, { 'x-whop-signature': header }, now)).toBeNull();
    expect(verifyDelivery(['ws_other'], body, { 'x-whop-signature': header }, now)).toBeNull();
    const v1 = header.split(',')[1]!;
    for (const bad of ['', v1, `t=${nowS}`, `t=${nowS},v1=zz`, `t=${nowS},t=${nowS},${v1}`, `t=abc,${v1}`, `${v1},t=${nowS}x`]) {
      expect(verifyDelivery([secret], body, { 'x-whop-signature': bad }, now), bad).toBeNull();
    }
  });

  it('given two v1 signatures (old and new secret during a rotation) / it verifies when any one matches, with either secret listed', () => {
    const own = signWhopWebhook(secret, nowS, body).split(',')[1]!;
    const other = signWhopWebhook('ws_previous', nowS, body).split(',')[1]!;
    expect(verifyDelivery([secret], body, { 'x-whop-signature': `t=${nowS},${other},${own}` }, now)).toBe('x-whop-signature');
    expect(verifyDelivery(['ws_unrelated', secret], body, { 'x-whop-signature': `t=${nowS},${own}` }, now)).toBe('x-whop-signature');
  });
});

describe('which scheme judges a delivery', () => {
  it('given Standard Webhooks headers / they alone judge it (an x-whop-signature beside them does not rescue a bad one)', () => {
    const wh = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    const id = 'msg_2tQpXk9';
    const sw = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': wh.sign(id, new Date(), body.toString('utf8')) };
    expect(verifyDelivery([secret], body, sw)).toBe('standard-webhooks');
    const whop = signWhopWebhook(secret, Math.floor(Date.now() / 1000), body);
    expect(verifyDelivery([secret], body, { ...sw, 'webhook-signature': 'v1,AAAA', 'x-whop-signature': whop })).toBeNull();
  });

  it('given x-whop-signature and the spec\'s header / x-whop-signature judges it; the spec\'s header alone still verifies', () => {
    expect(verifyDelivery([secret], body, { 'x-whop-signature': 't=1,v1=' + 'a'.repeat(64), 'x-processor-signature': signSpecWebhook(secret, body) }, now)).toBeNull();
    expect(verifyDelivery([secret], body, { 'x-processor-signature': signSpecWebhook(secret, body) }, now)).toBe('x-processor-signature');
  });
});

describe('the company an unverified event names', () => {
  it('given the envelope\'s company_id, its account_id, or only data.company.id / it names that company; nothing else names none', () => {
    expect(claimedCompany({ company_id: 'biz_env', data: { company: { id: 'biz_data' } } })).toBe('biz_env');
    expect(claimedCompany({ account_id: 'biz_acc', data: {} })).toBe('biz_acc');
    expect(claimedCompany({ data: { company: { id: 'biz_data' } } })).toBe('biz_data');
    expect(claimedCompany({ company_id: '', data: { company: 'biz_x' } })).toBeNull();
    expect(claimedCompany('not an object')).toBeNull();
  });
});
