// Contract: the local Whop's Domains API (sandbox/processor/domains.ts) answers Whop's OFFICIAL SDK for it — the Python
// whop-sdk 2.6.0 (pinned, cached: scripts/lib/whop-python-sdk.ts), the one official SDK with a domains resource (the
// TypeScript @whop/sdk 0.0.42 has none). test/contract/whop_domains_contract.py drives the SDK's own methods (list,
// create, retrieve, update, check, delete) and types; every answer below is what the SDK parsed, so a shape the SDK
// cannot read fails the test (`parse_error`). Then our client (integrations/processor) against the same simulator.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureWhopPythonSdk } from '../../scripts/lib/whop-python-sdk.js';
import { startProcessor, type RunningProcessor } from '../harness/processor.js';

const DRIVER = fileURLToPath(new URL('./whop_domains_contract.py', import.meta.url));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Answer = { ok?: Json; api_error?: { status: number; class: string; body: Json }; parse_error?: string };

let processor: RunningProcessor;
let python: ChildProcessWithoutNullStreams;
let stderr = '';
const waiting: Array<(line: string) => void> = [];

/** One SDK call through the driver (one JSON line each way). */
async function sdk(op: string, args: Record<string, unknown> = {}, opts: { apiKey?: string; idempotencyKey?: string } = {}): Promise<Answer> {
  const line = new Promise<string>((resolve) => waiting.push(resolve));
  python.stdin.write(`${JSON.stringify({ op, args, api_key: opts.apiKey ?? processor.sim.defaultApiKey, idempotency_key: opts.idempotencyKey })}\n`);
  const answer = JSON.parse(await line) as Answer;
  if (answer.parse_error) throw new Error(`whop-sdk could not read the simulator's answer to ${op}: ${answer.parse_error}`);
  return answer;
}
const ok = async (op: string, args: Record<string, unknown> = {}, opts: { apiKey?: string; idempotencyKey?: string } = {}) => {
  const answer = await sdk(op, args, opts);
  if (!('ok' in answer)) throw new Error(`whop-sdk ${op} failed: ${JSON.stringify(answer.api_error)}`);
  return answer.ok as Json;
};
const company = () => processor.sim.defaultBusinessId;

beforeAll(async () => {
  // Installs the pinned SDK into the cache the first time; a failure fails the test (never a silent skip).
  const { python: interpreter, version } = await ensureWhopPythonSdk((line) => console.log(line));
  expect(version).toBe('2.6.0');
  processor = await startProcessor();
  python = spawn(interpreter, [DRIVER, `${processor.baseUrl}/api/v1`], { stdio: ['pipe', 'pipe', 'pipe'] });
  python.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  python.on('exit', (code) => {
    for (const resolve of waiting.splice(0)) resolve(JSON.stringify({ parse_error: `the driver exited (${code}): ${stderr.slice(-2000)}` }));
  });
  createInterface({ input: python.stdout }).on('line', (line) => waiting.shift()?.(line));
}, 300_000);
afterAll(async () => {
  python?.stdin.end();
  await processor?.close();
});
beforeEach(async () => {
  await processor.control('POST', 'reset');
});

describe("Whop's Domains API through Whop's Python SDK (whop-sdk 2.6.0)", () => {
  it('given a host whose association file Apple cannot fetch / create with apple_pay, then check / pending as saved, then action_required with an apple_pay issue; once Apple can, check → ready', async () => {
    const created = await ok('create', { domain: 'Shop.Example.com', account_id: company(), apple_pay: {} }, { idempotencyKey: 'dom-1' });
    expect(created).toMatchObject({ id: expect.stringMatching(/^dom_/), domain: 'shop.example.com', account_id: company(), status: 'pending', apple_pay: { state: 'pending' }, issues: [], metadata: {} });
    // The same key and body: the stored answer again, no second domain.
    expect((await ok('create', { domain: 'Shop.Example.com', account_id: company(), apple_pay: {} }, { idempotencyKey: 'dom-1' })).id).toBe(created.id);

    // Apple answered: it could not fetch the file. The issue says what to do, with DNS records.
    const refused = await ok('retrieve', { id: created.id });
    expect(refused).toMatchObject({ status: 'action_required', apple_pay: { state: 'action_required' } });
    expect(refused.issues).toEqual([{
      capability: 'apple_pay', code: 'apple_pay_unverified', message: expect.stringContaining('/.well-known/apple-developer-merchantid-domain-association'),
      code_block: null, dns_records: [{ name: '_apple-pay.shop.example.com', type: 'TXT', value: expect.stringMatching(/^whop-apple-pay=/) }],
    }]);
    // Retrieve by hostname is the same domain.
    expect((await ok('retrieve', { id: 'shop.example.com' })).id).toBe(created.id);

    expect((await processor.control('POST', 'domains/association', { hostname: 'shop.example.com', served: true })).status).toBe(200);
    // check "returns the domain as saved; retrieve it again to see the result".
    expect(await ok('check', { id: created.id })).toMatchObject({ id: created.id, apple_pay: { state: 'pending' } });
    expect(await ok('retrieve', { id: created.id })).toMatchObject({ status: 'ready', apple_pay: { state: 'ready' }, issues: [] });

    // Listed by account and hostname, and by the capability's state.
    expect((await ok('list', { account_id: company(), domain: 'shop.example.com', first: 10 })).items.map((d: Json) => d.id)).toEqual([created.id]);
    expect((await ok('list', { apple_pay: 'ready' })).items).toHaveLength(1);
    expect((await ok('list', { apple_pay: 'action_required' })).items).toEqual([]);
  });

  it('given a domain without Apple Pay / update adds it, update with null releases it (releasing, then gone); a list pages through every domain', async () => {
    const plain = await ok('create', { domain: 'pay.example.com', apple_pay: null, metadata: { merchant: 'm1' } });
    expect(plain).toMatchObject({ status: 'idle', apple_pay: null, metadata: { merchant: 'm1' } });
    expect(await ok('update', { id: plain.id, apple_pay: {} })).toMatchObject({ apple_pay: { state: 'pending' } });
    // Passing the capability again while it needs action retries it.
    expect((await ok('retrieve', { id: plain.id })).apple_pay.state).toBe('action_required');
    expect((await ok('update', { id: plain.id, apple_pay: {} })).apple_pay.state).toBe('pending');
    expect(await ok('update', { id: plain.id, apple_pay: null })).toMatchObject({ status: 'releasing', apple_pay: { state: 'releasing' } });
    expect(await ok('retrieve', { id: plain.id })).toMatchObject({ status: 'idle', apple_pay: null, metadata: { merchant: 'm1' } });

    for (let i = 0; i < 3; i++) await ok('create', { domain: `p${i}.example.com`, apple_pay: {} });
    // first: 2 → two pages; the SDK's pager follows end_cursor.
    expect((await ok('list', { first: 2 })).items.map((d: Json) => d.domain).sort()).toEqual(['p0.example.com', 'p1.example.com', 'p2.example.com', 'pay.example.com']);
  });

  it('given a deleted domain / it is gone from reads, and adding it again revives it under its original id', async () => {
    const d = await ok('create', { domain: 'old.example.com', apple_pay: {} });
    expect((await ok('delete', { id: d.id })).id).toBe(d.id);
    expect((await sdk('retrieve', { id: d.id })).api_error).toMatchObject({ status: 404 });
    expect((await ok('list', { domain: 'old.example.com' })).items).toEqual([]);
    const again = await ok('create', { domain: 'old.example.com', apple_pay: {} });
    expect(again).toMatchObject({ id: d.id, apple_pay: { state: 'pending' } });
  });

  it('refusals: 400 for a URL or no capability (Whop would buy the domain), 409 for a second add, 403 for another account_id, 401 for a bad key; another account sees its domain without apple_pay', async () => {
    expect((await sdk('create', { domain: 'https://shop.example.com/x', apple_pay: {} })).api_error).toMatchObject({ status: 400, class: 'BadRequestError' });
    expect((await sdk('create', { domain: 'buy.example.com' })).api_error).toMatchObject({ status: 400, class: 'BadRequestError' });
    const d = await ok('create', { domain: 'a.example.com', apple_pay: {} });
    expect((await sdk('create', { domain: 'a.example.com', apple_pay: {} })).api_error).toMatchObject({ status: 409, class: 'ConflictError' });

    const other = await processor.control<{ apiKey: string; businessId: string }>('POST', 'accounts', {});
    expect((await sdk('create', { domain: 'x.example.com', account_id: other.body.businessId, apple_pay: {} })).api_error).toMatchObject({ status: 403 });
    expect((await sdk('update', { id: d.id, apple_pay: null }, { apiKey: other.body.apiKey })).api_error).toMatchObject({ status: 404 });
    expect(await ok('retrieve', { id: d.id }, { apiKey: other.body.apiKey })).toMatchObject({ id: d.id, domain: 'a.example.com', account_id: null, apple_pay: null, issues: [], metadata: {} });
    expect((await ok('list', {}, { apiKey: other.body.apiKey })).items).toEqual([]);
    expect((await sdk('list', {}, { apiKey: 'apik_wrong_key_1234' })).api_error).toMatchObject({ status: 401 });
  });

  it("given a key without domain:read and domain:manage / list, create, update and check are 403; retrieve answers the domain with apple_pay null", async () => {
    const d = await ok('create', { domain: 'perm.example.com', apple_pay: {} });
    await processor.control('POST', 'domains/permissions', { api_key: processor.sim.defaultApiKey, permissions: [] });
    for (const [op, args] of [['list', {}], ['create', { domain: 'b.example.com', apple_pay: {} }], ['update', { id: d.id, apple_pay: {} }], ['check', { id: d.id }]] as const) {
      expect((await sdk(op, args)).api_error, op).toMatchObject({ status: 403 });
    }
    expect(await ok('retrieve', { id: d.id })).toMatchObject({ id: d.id, apple_pay: null, issues: [] });
  });
});

describe('our client against it', () => {
  it('finds nothing, creates with Apple Pay, reads Apple refusing with its issue, checks again once the file is served: ready', async () => {
    const client = processor.client();
    expect(await client.findDomain({ companyId: company(), hostname: 'shop.example.com' })).toBeNull();
    const created = await client.createDomain({ companyId: company(), hostname: 'shop.example.com' }, 'apple-pay-domain-run-1');
    expect(created).toEqual({ id: expect.stringMatching(/^dom_/), hostname: 'shop.example.com', applePay: 'pending', issues: [] });
    expect((await client.findDomain({ companyId: company(), hostname: 'SHOP.example.com' }))?.id).toBe(created.id);

    const refused = await client.getDomain(created.id);
    expect(refused.applePay).toBe('action_required');
    expect(refused.issues).toEqual([{ capability: 'apple_pay', code: 'apple_pay_unverified', message: expect.any(String), codeBlock: null, dnsRecords: [{ type: 'TXT', name: '_apple-pay.shop.example.com', value: expect.any(String) }] }]);

    await processor.control('POST', 'domains/association', { hostname: 'shop.example.com', served: true });
    expect((await client.checkDomain(created.id)).applePay).toBe('pending');
    expect(await client.getDomain(created.id)).toMatchObject({ applePay: 'ready', issues: [] });
  });

  it('adds Apple Pay to a domain without it (PATCH), and a key without the permissions is unauthorized with status 403', async () => {
    const client = processor.client();
    const plain = await ok('create', { domain: 'plain.example.com', apple_pay: null });
    expect((await client.addApplePay(plain.id)).applePay).toBe('pending');
    await processor.control('POST', 'domains/permissions', { api_key: processor.sim.defaultApiKey, permissions: ['domain:read'] });
    await expect(client.checkDomain(plain.id)).rejects.toMatchObject({ kind: 'unauthorized', status: 403 });
    await expect(processor.client({ apiKey: 'apik_nope_nope_nope' }).getDomain(plain.id)).rejects.toMatchObject({ kind: 'unauthorized', status: 401 });
  });
});
