// The clocks of custom domain verification (and the end of the retired wallet domain workflow), on the time-skipping test server
// with the real activities against a real database, the DNS simulator (a real DNS server on UDP/TCP) and
// the processor sandbox. Hours pass in seconds: time skips whenever no activity runs while the test waits.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { createDnsSimulator, type DnsSimulator } from '../../sandbox/dns/index.js';
import { createSecretBox } from '../../security/secrets.js';
import { verifyCustomDomainWorkflow } from '../../workflows/custom-domains/custom-domain.js';
import { walletDomainWorkflow } from '../../workflows/custom-domains/wallet-domain.js';
import { processorAad } from '../../model/connections.js';
import { DOMAIN_CHECK_SCHEDULE } from '../../domain/hostnames.js';
import { startActivityRig, type ActivityRig } from '../harness/activity-rig.js';
import { startTimeSkipping, uniqueTaskQueue, type TimeSkippingTemporal } from '../harness/temporal.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let dns: DnsSimulator;
let rig: ActivityRig;
let ts: TimeSkippingTemporal;

beforeAll(async () => {
  dns = createDnsSimulator();
  const { port } = await dns.udp.start();
  rig = await startActivityRig({ taskQueue: uniqueTaskQueue('ts'), env: { DNS_SERVERS: `127.0.0.1:${port}` } });
});
afterAll(async () => {
  await rig?.close();
  await dns?.udp.stop();
});
// A server per test: each test's clock starts fresh.
beforeEach(async () => {
  ts = await startTimeSkipping();
});
afterEach(async () => {
  await ts?.close();
});

const db = () => rig.database.db;

async function merchant(opts: { processor?: boolean } = {}) {
  const i = randomBytes(4).toString('hex');
  const row = await db().merchant.create({ data: { email: `owner-${i}@shop.test`, passwordHash: 'x', shopName: `Domain Shop ${i}`, phone: '+49 30 1234', slug: `dom-${i}` } });
  if (opts.processor) {
    const secrets = createSecretBox(rig.config.secretsKey!);
    const apiKey = rig.sims.processor.defaultApiKey;
    await db().processorConnection.create({
      data: {
        merchantId: row.id,
        apiKeyEnc: secrets.encrypt(apiKey, processorAad.apiKey(row.id)),
        apiKeyLast4: apiKey.slice(-4),
        businessId: rig.sims.processor.defaultBusinessId,
        productId: 'prod_test',
        status: 'CONNECTED',
        connectedAt: new Date(),
      },
    });
  }
  return row;
}

/** A claim as POST /api/merchant/domain leaves it, before its workflow starts. */
async function claim(merchantId: string) {
  const apex = `shop-${randomBytes(4).toString('hex')}.com`;
  return db().customDomain.create({
    data: { merchantId, hostname: `checkout.${apex}`, apex, verificationToken: randomBytes(16).toString('hex'), expiresAt: new Date(Date.now() + 72 * HOUR) },
  });
}

const startVerification = (merchantId: string, domainId: string) =>
  ts.env.client.workflow.start(verifyCustomDomainWorkflow, { taskQueue: ts.taskQueue, workflowId: WORKFLOWS.customDomain.id(merchantId), args: [{ merchantId, domainId }] });

const startWallet = (merchantId: string) =>
  ts.env.client.workflow.start(walletDomainWorkflow, { taskQueue: ts.taskQueue, workflowId: WORKFLOWS.walletDomain.id(merchantId), args: [{ merchantId }] });

/** How long the workflow ran, start to close, in its own (skipped) time. */
async function ranFor(handle: WorkflowHandle): Promise<number> {
  const { startTime, closeTime } = await handle.describe();
  return closeTime!.getTime() - startTime.getTime();
}

/** When each run of `activity` was scheduled, in (skipped) workflow time. */
async function activityTimes(handle: WorkflowHandle, activity: string): Promise<number[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity)
    .map((e) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6));
}

const gapsInMinutes = (times: number[]) => times.slice(1).map((t, i) => Math.round((t - times[i]!) / MINUTE));

describe('custom domain verification (time-skipping)', () => {
  it('given a claim whose CNAME appears after 30 hours / the hourly re-check finds it: VERIFIED within the hour, and no wallet domain workflow is started', async () => {
    const m = await merchant();
    const domain = await claim(m.id);

    const { result, handle, wallet } = await ts.withWorker(rig.activities, async () => {
      const handle = await startVerification(m.id, domain.id);
      await ts.env.sleep('30 hours');
      expect(await db().customDomain.findUniqueOrThrow({ where: { id: domain.id } })).toMatchObject({ status: 'PENDING', lastError: `${domain.hostname} has no CNAME record yet` });
      dns.records.add({ name: domain.hostname, type: 'CNAME', value: `${m.slug}.localhost` });
      const result = await handle.result();
      // Verified: wallets do not depend on the checkout domain (shoppers pay on Whop's page), so nothing else starts.
      const wallet = await ts.env.client.workflow.getHandle(WORKFLOWS.walletDomain.id(m.id)).describe().then(() => 'started', (err: Error) => err.name);
      return { result, handle, wallet };
    });

    expect(result.status).toBe('VERIFIED');
    const duration = await ranFor(handle);
    expect(duration).toBeGreaterThanOrEqual(30 * HOUR);
    expect(duration).toBeLessThanOrEqual(31 * HOUR + MINUTE);
    expect(wallet).toBe('WorkflowNotFoundError');

    const row = await db().customDomain.findUniqueOrThrow({ where: { id: domain.id } });
    expect(row).toMatchObject({ status: 'VERIFIED', verifiedBy: 'cname', lastError: null, checks: result.checks });
    expect(row.verifiedAt).not.toBeNull();
    // Backed off: 1, 2, 4, 8, 16, 32 minutes, then hourly — about 36 looks in 30 hours, not one a minute.
    const looks = await activityTimes(handle, 'checkCustomDomainDns');
    expect(looks).toHaveLength(result.checks);
    expect(looks.length).toBeGreaterThanOrEqual(34);
    expect(looks.length).toBeLessThanOrEqual(38);
    const gaps = gapsInMinutes(looks);
    expect(gaps.slice(0, 7)).toEqual([1, 2, 4, 8, 16, 32, 60]);
    expect(gaps.every((g) => g <= 60)).toBe(true);
  });

  it('given a claim whose records never appear / it stops after 72 hours: EXPIRED', async () => {
    const m = await merchant();
    const domain = await claim(m.id);

    const { result, handle } = await ts.withWorker(rig.activities, async () => {
      const handle = await startVerification(m.id, domain.id);
      return { result: await handle.result(), handle };
    });

    expect(result.status).toBe('EXPIRED');
    const duration = await ranFor(handle);
    expect(duration).toBeGreaterThanOrEqual(DOMAIN_CHECK_SCHEDULE.giveUpAfterMs);
    expect(duration).toBeLessThan(72 * HOUR + MINUTE);
    const row = await db().customDomain.findUniqueOrThrow({ where: { id: domain.id } });
    expect(row).toMatchObject({ status: 'EXPIRED', verifiedBy: null, verifiedAt: null, lastError: `${domain.hostname} has no CNAME record yet`, checks: result.checks });
    // 7 backed-off looks in the first hour, then hourly, and one last look at the 72nd hour.
    expect(result.checks).toBeGreaterThanOrEqual(76);
    expect(result.checks).toBeLessThanOrEqual(80);
    expect(await db().walletDomain.findUnique({ where: { merchantId: m.id } })).toBeNull();
  });

  it("given a CNAME that points to another merchant's subdomain for 72 hours / it ends FAILED, saying what it saw", async () => {
    const m = await merchant();
    const domain = await claim(m.id);
    dns.records.add({ name: domain.hostname, type: 'CNAME', value: 'someone-else.localhost' });

    const result = await ts.withWorker(rig.activities, async () => (await startVerification(m.id, domain.id)).result());

    expect(result.status).toBe('FAILED');
    const row = await db().customDomain.findUniqueOrThrow({ where: { id: domain.id } });
    expect(row.status).toBe('FAILED');
    expect(row.lastError).toBe(`the CNAME of ${domain.hostname} points to someone-else.localhost, not ${m.slug}.localhost`);
  });
});

describe('the retired wallet domain workflow (time-skipping)', () => {
  it('given a wallet domain run started the way earlier code did, for a merchant with a processor / it ends at its first step: no check, no email, nothing recorded', async () => {
    const m = await merchant({ processor: true });

    const { result, handle } = await ts.withWorker(rig.activities, async () => {
      const handle = await startWallet(m.id);
      return { result: await handle.result(), handle };
    });

    // Whop's hosted page offers wallets with no domain set-up (docs/processor.md): nothing to register or ask.
    expect(result).toEqual({ status: 'HOSTED', domain: null });
    expect(await ranFor(handle)).toBeLessThan(MINUTE);
    expect(await activityTimes(handle, 'syncWalletDomain')).toEqual([]);
    await ts.env.sleep('5 hours');
    expect(rig.sims.email.messages({ to: m.email })).toEqual([]);
    expect(await db().walletDomain.findUnique({ where: { merchantId: m.id } })).toBeNull();
  });
});
