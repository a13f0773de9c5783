// Contract: the local Whop's Domains API (sandbox/processor/domains.ts) answers the official SDK's own request methods
// (@whop/sdk 0.0.42 has no domains resource: `whop.get/post` carry its base URL, Bearer auth and Api-Version-Date) as
// Whop's docs describe it, and our client (integrations/processor) reads what it answers. The shapes the docs did not
// let us read whole are listed as not verified in docs/processor.md.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Whop from '@whop/sdk';
import { startProcessor, type RunningProcessor } from '../harness/processor.js';

let processor: RunningProcessor;
const sdk = (apiKey = processor.sim.defaultApiKey) => new Whop({ apiKey, baseURL: `${processor.baseUrl}/api/v1`, maxRetries: 0, timeout: 5_000, webhookKey: null });
const company = () => processor.sim.defaultBusinessId;
type DomainAnswer = { id: string; account_id: string; hostname: string; verification: { status: string; records: Array<{ type: string; name: string; value: string }> }; apple_pay: { status: string; issue: string | null } | null };

beforeAll(async () => {
  processor = await startProcessor();
});
afterAll(async () => processor?.close());
beforeEach(async () => {
  await processor.control('POST', 'reset');
});

describe("Whop's Domains API through the SDK's request methods", () => {
  it('given a new hostname / when it is created, Apple Pay added, the records published and Apple Pay checked / the capability moves pending → ready', async () => {
    const whop = sdk();
    const created = await whop.post<DomainAnswer>('/domains', { body: { hostname: 'Shop.Example.com', account_id: company() }, headers: { 'Idempotency-Key': 'd1' } });
    expect(created).toMatchObject({ id: expect.stringMatching(/^dom_/), account_id: company(), hostname: 'shop.example.com', apple_pay: null, verification: { status: 'pending' } });
    expect(created.verification.records).toEqual([{ type: 'TXT', name: '_whop-verification.shop.example.com', value: expect.stringMatching(/^whop-domain-verification=/) }]);
    // The same key and body: the stored answer again.
    expect((await whop.post<DomainAnswer>('/domains', { body: { hostname: 'Shop.Example.com', account_id: company() }, headers: { 'Idempotency-Key': 'd1' } })).id).toBe(created.id);

    const added = await whop.post<DomainAnswer>(`/domains/${created.id}/apple_pay`);
    expect(added.apple_pay).toEqual({ status: 'pending', issue: expect.stringContaining('DNS records') });
    expect((await whop.post<DomainAnswer>(`/domains/${created.id}/apple_pay/check`)).apple_pay?.status).toBe('pending');

    await processor.control('POST', `domains/${created.id}/verification`, { status: 'verified' });
    expect((await whop.post<DomainAnswer>(`/domains/${created.id}/apple_pay/check`)).apple_pay).toEqual({ status: 'ready', issue: null });
    expect((await whop.get<DomainAnswer>(`/domains/${created.id}`)).apple_pay?.status).toBe('ready');
    const listed = await whop.get<{ data: DomainAnswer[] }>('/domains', { query: { hostname: 'shop.example.com' } });
    expect(listed.data.map((d) => d.id)).toEqual([created.id]);

    expect((await whop.delete<DomainAnswer>(`/domains/${created.id}/apple_pay`)).apple_pay).toBeNull();
  });

  it("given another company's domain / when this key reads or changes it / it does not exist for it (404), and account_id of another company is a 403", async () => {
    const other = await processor.control<{ apiKey: string; businessId: string }>('POST', 'accounts', {});
    const theirs = await sdk(other.body.apiKey).post<DomainAnswer>('/domains', { body: { hostname: 'pay.theirs.com' } });
    await expect(sdk().get(`/domains/${theirs.id}`)).rejects.toMatchObject({ status: 404 });
    await expect(sdk().post(`/domains/${theirs.id}/apple_pay`)).rejects.toMatchObject({ status: 404 });
    await expect(sdk().post('/domains', { body: { hostname: 'x.example.com', account_id: other.body.businessId } })).rejects.toMatchObject({ status: 403 });
    expect((await sdk().get<{ data: DomainAnswer[] }>('/domains')).data).toEqual([]);
  });

  it('given bad input / when creating or checking / 400 for a non-hostname, 409 for a second claim or a check before Apple Pay was added', async () => {
    await expect(sdk().post('/domains', { body: { hostname: 'https://shop.example.com/x' } })).rejects.toMatchObject({ status: 400 });
    const d = await sdk().post<DomainAnswer>('/domains', { body: { hostname: 'a.example.com' } });
    await expect(sdk().post('/domains', { body: { hostname: 'a.example.com' } })).rejects.toMatchObject({ status: 409 });
    await expect(sdk().post(`/domains/${d.id}/apple_pay/check`)).rejects.toMatchObject({ status: 409 });
    await expect(sdk('apik_wrong_key_1234').get('/domains')).rejects.toMatchObject({ status: 401 });
  });
});

describe('our client against it', () => {
  it('finds nothing, creates, adds Apple Pay, and reads ready once verified; Apple refusing shows its issue', async () => {
    const client = processor.client();
    expect(await client.findDomain({ companyId: company(), hostname: 'shop.example.com' })).toBeNull();
    const created = await client.createDomain({ companyId: company(), hostname: 'shop.example.com' }, 'apple-pay-domain-1');
    expect(created).toMatchObject({ id: expect.stringMatching(/^dom_/), hostname: 'shop.example.com', verification: 'pending', applePay: null });
    expect(created.records).toHaveLength(1);
    expect((await client.findDomain({ companyId: company(), hostname: 'SHOP.example.com' }))?.id).toBe(created.id);
    expect((await client.addApplePay(created.id, 'apple-pay-add-1')).applePay?.status).toBe('pending');

    await processor.control('POST', `domains/${created.id}/verification`, { status: 'verified' });
    expect(await client.checkApplePay(created.id)).toMatchObject({ verification: 'verified', applePay: { status: 'ready', issue: null } });

    await processor.control('POST', `domains/${created.id}/apple_pay`, { status: 'action_required', issue: 'Apple could not reach the domain' });
    expect((await client.getDomain(created.id)).applePay).toEqual({ status: 'action_required', issue: 'Apple could not reach the domain' });
  });

  it('an expired claim is not found, and a bad key is unauthorized', async () => {
    const client = processor.client();
    const created = await client.createDomain({ companyId: company(), hostname: 'old.example.com' }, 'k-old');
    await processor.control('POST', `domains/${created.id}/verification`, { status: 'expired' });
    expect(await client.findDomain({ companyId: company(), hostname: 'old.example.com' })).toBeNull();
    await expect(processor.client({ apiKey: 'apik_nope_nope_nope' }).getDomain(created.id)).rejects.toMatchObject({ kind: 'unauthorized' });
  });
});
