// POST /webhooks/processor/payment-update against a real database and Temporal: signature over the raw
// body with the session's merchant's secret, every delivery stored, one signal-with-start per event.
//
// The webhook app here sends its signals to a task queue no worker polls, so the checkout workflow is
// created by signal-with-start and then simply waits, RUNNING, with the signals in its history: what
// this route did is read from there, whatever the workflow itself would go on to do.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { resolveDeps } from '../../route-deps.js';
import { buildApp } from '../../app.js';
import { processorWebhookRoutes, readClaims } from './processor.js';
import { PROCESSOR_WEBHOOK_PATH } from '../../../model/connections.js';
import { createProcessorClient } from '../../../integrations/processor/client.js';
import { signSpecWebhook as signWebhook, signWhopWebhook, SPEC_SIGNATURE_HEADER as SIGNATURE_HEADER } from '../../../integrations/processor/webhook.js';
import { createSecretBox } from '../../../security/secrets.js';
import { createUrlGuard } from '../../../security/ssrf.js';
import { freePort } from '../../../scripts/lib/ports.js';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { uniqueTaskQueue } from '../../../test/harness/temporal.js';
import { createTestMerchant } from '../../../test/harness/merchants.js';
import { processorAad } from '../../../model/connections.js';
import { type ProcessorEventMessage } from '../../../domain/checkout/checkout-workflow.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

let stack: TestStack;
/** Our webhook endpoint as the processor reaches it (PUBLIC_API_URL of the stack points here). */
let app: FastifyInstance;
const workerlessQueue = uniqueTaskQueue('checkout-signals');
const started = new Set<string>();

type TemporalDeps = { client: Client; connection: Connection };

/** The API on the stack's database, signalling `temporal` on a task queue without a worker. */
async function webhookApp(temporal: TemporalDeps): Promise<FastifyInstance> {
  const config = { ...stack.config, temporal: { ...stack.config.temporal, taskQueue: workerlessQueue } };
  const deps = { config, db: stack.database.db, temporal, logger: false as const, urlGuard: createUrlGuard({ allowedOrigins: Object.values(stack.urls) }) };
  const built = await buildApp(deps);
  if (!built.hasRoute({ method: 'POST', url: PROCESSOR_WEBHOOK_PATH })) await built.register(processorWebhookRoutes, resolveDeps(deps));
  await built.ready();
  return built;
}

beforeAll(async () => {
  const port = await freePort();
  stack = await startTestStack({ PUBLIC_API_URL: `http://127.0.0.1:${port}` });
  app = await webhookApp({ client: stack.temporal.client, connection: stack.temporal.connection });
  await app.listen({ port, host: '127.0.0.1' });
});
afterEach(async () => {
  await Promise.all([...started].map((token) => stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).terminate('test over').catch(() => undefined)));
  started.clear();
});
afterAll(async () => {
  await app?.close();
  await stack?.close();
});

const db = () => stack.database.db;
const box = () => createSecretBox(stack.config.secretsKey!);
const newToken = () => `cs_${randomBytes(24).toString('base64url')}`;

interface Fixture {
  merchantId: string;
  token: string;
  secret: string;
}

/** A merchant with a connected processor (webhook secret sealed as the connect activity does) and a session. */
async function sessionFixture(opts: { withSecret?: boolean; businessId?: string } = {}): Promise<Fixture> {
  const merchant = await createTestMerchant(db(), app);
  const secret = `ws_${randomBytes(16).toString('hex')}`;
  await db().processorConnection.create({
    data: {
      merchantId: merchant.id,
      apiKeyEnc: box().encrypt('sk_test_key', processorAad.apiKey(merchant.id)),
      apiKeyLast4: '_key',
      businessId: opts.businessId ?? 'biz_test',
      productId: 'prod_test',
      webhookId: 'wh_test',
      webhookSecretEnc: opts.withSecret === false ? null : box().encrypt(secret, processorAad.webhookSecret(merchant.id)),
      status: 'CONNECTED',
      connectedAt: new Date(),
    },
  });
  const token = await sessionFor(merchant.id);
  return { merchantId: merchant.id, token, secret };
}

async function sessionFor(merchantId: string): Promise<string> {
  const token = newToken();
  await db().checkoutSession.create({
    data: { token, merchantId, platform: 'STOREFRONT_A', currency: 'EUR', fxRates: { date: '2026-01-02', rates: { USD: '1.1562' } }, items: [], subtotalMinor: 2500 },
  });
  started.add(token);
  return token;
}

function paymentEvent(token: string, overrides: { id?: string; event?: string; paymentId?: string } = {}) {
  return {
    id: overrides.id ?? `evt_${randomBytes(10).toString('hex')}`,
    event: overrides.event ?? 'payment_succeeded',
    created_at: new Date().toISOString(),
    data: { id: overrides.paymentId ?? 'pay_test123', status: 'succeeded', amount: 2500, currency: 'EUR', metadata: { checkout_session_token: token } },
  };
}

/** Posts raw bytes as the processor does: signed with `secret` unless a signature is given. */
async function deliver(body: string | object, opts: { secret?: string; signature?: string | null; to?: FastifyInstance; headers?: Record<string, string> } = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = opts.signature === undefined ? signWebhook(opts.secret ?? '', raw) : opts.signature;
  const res = await (opts.to ?? app).inject({
    method: 'POST',
    url: PROCESSOR_WEBHOOK_PATH,
    payload: raw,
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { [SIGNATURE_HEADER]: signature }), ...opts.headers },
  });
  return { status: res.statusCode, body: res.json() as { received?: boolean; duplicate?: boolean; code?: string; error?: string } };
}

const deliveriesOf = (token: string) => db().processorWebhookDelivery.findMany({ where: { sessionToken: token }, orderBy: { receivedAt: 'asc' } });
const sessionEventsOf = (token: string) => db().sessionEvent.findMany({ where: { token } });

function decode(payload: { data?: Uint8Array | string | null } | undefined): unknown {
  const data = payload?.data;
  if (data === undefined || data === null) return undefined;
  return JSON.parse((typeof data === 'string' ? Buffer.from(data, 'base64') : Buffer.from(data)).toString('utf8'));
}

/** The checkout workflow of a session as Temporal has it: null when it was never started. */
async function workflowOf(token: string) {
  const handle = stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token));
  let description;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
  const { events } = await handle.fetchHistory();
  const input = decode(events?.find((e) => e.workflowExecutionStartedEventAttributes)?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
  const signals = (events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === 'processorEvent')
    .map((a) => decode(a?.input?.payloads?.[0]) as ProcessorEventMessage);
  return { status: description.status.name, type: description.type, taskQueue: description.taskQueue, input, signals };
}

describe('reading an unverified body', () => {
  it('given any body / when its claims are read / then only a string token and event come out, and non-JSON claims nothing', () => {
    expect(readClaims('{"event":"payment_succeeded","data":{"metadata":{"checkout_session_token":"cs_x"}}}')).toMatchObject({ token: 'cs_x', event: 'payment_succeeded' });
    expect(readClaims('{"event":7,"data":{"metadata":{"checkout_session_token":{"$ne":null}}}}')).toMatchObject({ token: null, event: null });
    expect(readClaims('[1,2]')).toMatchObject({ json: [1, 2], token: null, event: null });
    expect(readClaims('not json')).toEqual({ json: undefined, token: null, event: null });
  });
});

describe('a validly signed event', () => {
  it('given a session of a connected merchant / when the processor delivers a signed payment_succeeded / then it is stored, recorded on the timeline, and signalled with signal-with-start', async () => {
    const f = await sessionFixture();
    const body = paymentEvent(f.token, { paymentId: 'pay_abc' });
    const raw = JSON.stringify(body);

    const res = await deliver(raw, { secret: f.secret });

    expect(res).toEqual({ status: 200, body: { received: true, duplicate: false } });
    const [row, ...more] = await deliveriesOf(f.token);
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({ eventId: body.id, event: 'payment_succeeded', merchantId: f.merchantId, signatureValid: true, rejection: null, rawBody: raw });
    expect(row!.signalledAt).toBeInstanceOf(Date);
    expect((await sessionEventsOf(f.token)).map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'webhook_received', data: { eventId: body.id, event: 'payment_succeeded', verified: true } },
    ]);
    const wf = await workflowOf(f.token);
    expect(wf).toMatchObject({ status: 'RUNNING', type: 'checkoutWorkflow', taskQueue: workerlessQueue });
    expect(wf!.input).toEqual({ token: f.token, merchantId: f.merchantId, platform: 'STOREFRONT_A', abandonAfterMs: stack.config.checkout.abandonAfterMs });
    expect(wf!.signals).toEqual([{ eventId: body.id, event: 'payment_succeeded', paymentId: 'pay_abc' }]);
  });

  it('given two events of one session / when both are delivered / then each is signalled to the same workflow, in order', async () => {
    const f = await sessionFixture();
    const failed = paymentEvent(f.token, { event: 'payment_failed' });
    const succeeded = paymentEvent(f.token, { event: 'payment_succeeded' });
    expect((await deliver(failed, { secret: f.secret })).status).toBe(200);
    expect((await deliver(succeeded, { secret: f.secret })).status).toBe(200);
    expect((await workflowOf(f.token))!.signals.map((s) => s.eventId)).toEqual([failed.id, succeeded.id]);
  });

  it('given a signed payload without an event id / when it is delivered twice / then it is keyed by event and payment and signalled once', async () => {
    const f = await sessionFixture();
    const { id: _id, ...body } = paymentEvent(f.token, { paymentId: 'pay_noid' });
    expect((await deliver(body, { secret: f.secret })).body).toEqual({ received: true, duplicate: false });
    expect((await deliver(body, { secret: f.secret })).body).toEqual({ received: true, duplicate: true });
    expect((await workflowOf(f.token))!.signals).toEqual([{ eventId: 'payment_succeeded:pay_noid', event: 'payment_succeeded', paymentId: 'pay_noid' }]);
  });
});

describe('duplicates', () => {
  it('given an event already signalled / when it is delivered again / then 200 duplicate, stored without the event id, and not signalled again', async () => {
    const f = await sessionFixture();
    const body = paymentEvent(f.token);
    await deliver(body, { secret: f.secret });

    const again = await deliver(body, { secret: f.secret });

    expect(again).toEqual({ status: 200, body: { received: true, duplicate: true } });
    const rows = await deliveriesOf(f.token);
    expect(rows.map((r) => ({ eventId: r.eventId, rejection: r.rejection, signatureValid: r.signatureValid, signalled: r.signalledAt !== null }))).toEqual([
      { eventId: body.id, rejection: null, signatureValid: true, signalled: true },
      { eventId: null, rejection: 'duplicate', signatureValid: true, signalled: false },
    ]);
    expect(await sessionEventsOf(f.token)).toHaveLength(1);
    expect((await workflowOf(f.token))!.signals).toHaveLength(1);
  });

  it('given 10 identical deliveries at once / when they race / then all are answered 200, stored, and exactly one is signalled', async () => {
    const f = await sessionFixture();
    const raw = JSON.stringify(paymentEvent(f.token));

    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(raw, { secret: f.secret })));

    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
    const rows = await deliveriesOf(f.token);
    expect(rows).toHaveLength(10);
    expect(rows.filter((r) => r.signalledAt !== null && r.eventId !== null)).toHaveLength(1);
    expect(rows.filter((r) => r.rejection === 'duplicate' && r.eventId === null && r.signalledAt === null)).toHaveLength(9);
    expect((await workflowOf(f.token))!.signals).toHaveLength(1);
    expect(await sessionEventsOf(f.token)).toHaveLength(1);
  });
});

describe('signatures', () => {
  it('given a body signed with another secret / when it is delivered / then 401 INVALID_SIGNATURE, stored as bad_signature, and nothing happens', async () => {
    const f = await sessionFixture();
    const body = paymentEvent(f.token);

    const res = await deliver(body, { secret: 'whsec_not_the_merchants' });

    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
    const rows = await deliveriesOf(f.token);
    expect(rows).toEqual([expect.objectContaining({ eventId: null, event: 'payment_succeeded', merchantId: f.merchantId, signatureValid: false, rejection: 'bad_signature', signalledAt: null, rawBody: JSON.stringify(body) })]);
    expect(await sessionEventsOf(f.token)).toHaveLength(0);
    expect(await workflowOf(f.token)).toBeNull();
  });

  it('given a correctly signed body / when one byte of it is changed in transit / then 401 and nothing happens', async () => {
    const f = await sessionFixture();
    const raw = JSON.stringify(paymentEvent(f.token));
    const signature = signWebhook(f.secret, raw);

    const res = await deliver(raw.replace('"amount":2500', '"amount":2501'), { signature });

    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
    expect(await workflowOf(f.token)).toBeNull();
  });

  it('given the signature of the same JSON re-serialised with other spacing / when delivered / then 401: the raw bytes are what is signed', async () => {
    const f = await sessionFixture();
    const body = paymentEvent(f.token);
    const res = await deliver(JSON.stringify(body, null, 2), { signature: signWebhook(f.secret, JSON.stringify(body)) });
    expect(res.status).toBe(401);
  });

  it('given a delivery without a signature, or with a malformed one / when delivered / then 401 and stored as bad_signature', async () => {
    const f = await sessionFixture();
    expect((await deliver(paymentEvent(f.token), { signature: null })).status).toBe(401);
    expect((await deliver(paymentEvent(f.token), { signature: 'zz'.repeat(32) })).status).toBe(401);
    expect((await deliver(paymentEvent(f.token), { signature: '' })).status).toBe(401);
    expect((await deliveriesOf(f.token)).map((r) => r.rejection)).toEqual(['bad_signature', 'bad_signature', 'bad_signature']);
    expect(await workflowOf(f.token)).toBeNull();
  });

  it('given merchant B\'s session / when a body naming it is signed with merchant A\'s secret / then 401: each session verifies only with its own merchant\'s secret', async () => {
    const a = await sessionFixture();
    const b = await sessionFixture();
    const res = await deliver(paymentEvent(b.token), { secret: a.secret });
    expect(res.status).toBe(401);
    expect(await deliveriesOf(b.token)).toEqual([expect.objectContaining({ merchantId: b.merchantId, rejection: 'bad_signature' })]);
    expect(await workflowOf(b.token)).toBeNull();
  });

  it('given a forged delivery carrying a real event\'s id / when the real event arrives after it / then the real one is applied, not taken for a duplicate', async () => {
    const f = await sessionFixture();
    const body = paymentEvent(f.token);
    expect((await deliver({ ...body, event: 'payment_refunded' }, { secret: 'forger' })).status).toBe(401);

    const real = await deliver(body, { secret: f.secret });

    expect(real.body).toEqual({ received: true, duplicate: false });
    expect((await workflowOf(f.token))!.signals).toEqual([expect.objectContaining({ eventId: body.id, event: 'payment_succeeded' })]);
  });
});

describe('deliveries that cannot be verified or read', () => {
  it('given a body that is not JSON / when delivered / then 400 INVALID_INPUT, stored as malformed', async () => {
    const before = await db().processorWebhookDelivery.count({ where: { rejection: 'malformed' } });
    const res = await deliver('{"event": "payment_succeeded", \u0000 oops', { signature: 'ab'.repeat(32) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    const rows = await db().processorWebhookDelivery.findMany({ where: { rejection: 'malformed' }, orderBy: { receivedAt: 'desc' } });
    expect(rows).toHaveLength(before + 1);
    expect(rows[0]).toMatchObject({ signatureValid: false, sessionToken: null, merchantId: null, eventId: null, rawBody: '{"event": "payment_succeeded", \uFFFD oops' });
  });

  it('given validly signed JSON that is not an event (no data.id) / when delivered / then 400, stored as malformed with a valid signature, not signalled', async () => {
    const f = await sessionFixture();
    const body = { id: 'evt_shapeless', event: 'payment_succeeded', data: { metadata: { checkout_session_token: f.token } } };
    const res = await deliver(body, { secret: f.secret });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(await deliveriesOf(f.token)).toEqual([expect.objectContaining({ signatureValid: true, rejection: 'malformed', eventId: null, signalledAt: null })]);
    expect(await workflowOf(f.token)).toBeNull();
  });

  it('given a token no session has / when delivered / then 401 (nothing to verify with), stored as unknown_session, no workflow started', async () => {
    const token = newToken();
    started.add(token);
    const res = await deliver(paymentEvent(token), { secret: 'anything' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
    expect(await deliveriesOf(token)).toEqual([expect.objectContaining({ sessionToken: token, merchantId: null, signatureValid: false, rejection: 'unknown_session' })]);
    expect(await workflowOf(token)).toBeNull();
  });

  it('given a body without a token, or with one of the wrong shape / when delivered / then 401 unknown_session without a session lookup', async () => {
    const { data: _data, ...noData } = paymentEvent('x');
    expect((await deliver(noData, { secret: 'x' })).status).toBe(401);
    expect((await deliver(paymentEvent('not-a-token'), { secret: 'x' })).status).toBe(401);
    expect(await deliveriesOf('not-a-token')).toEqual([expect.objectContaining({ rejection: 'unknown_session' })]);
  });

  it('given a merchant whose webhook secret is not stored / when a delivery for its session arrives / then 401, stored as no_secret', async () => {
    const f = await sessionFixture({ withSecret: false });
    const res = await deliver(paymentEvent(f.token), { secret: f.secret });
    expect(res.status).toBe(401);
    expect(await deliveriesOf(f.token)).toEqual([expect.objectContaining({ merchantId: f.merchantId, rejection: 'no_secret', signatureValid: false })]);
    expect(await workflowOf(f.token)).toBeNull();
  });
});

/** Whop's envelope as an endpoint created with POST /webhooks receives it (SDK PaymentSucceededWebhookEvent). */
function whopEvent(type: string, data: Record<string, unknown>, companyId: string) {
  return { id: `msg_${randomBytes(12).toString('hex')}`, api_version: 'v1', type, timestamp: new Date().toISOString(), company_id: companyId, data };
}

/** Delivers as Whop does for an API-created endpoint: only x-whop-signature, t=<unix>,v1=<hex HMAC of "t.body">. */
function deliverWhop(body: object, secret: string, opts: { at?: number; headers?: Record<string, string> } = {}) {
  const raw = JSON.stringify(body);
  return deliver(raw, { signature: null, headers: { 'x-whop-signature': signWhopWebhook(secret, opts.at ?? Math.floor(Date.now() / 1000), raw), ...opts.headers } });
}

const newCompany = () => `biz_${randomBytes(7).toString('hex')}`;

describe('Whop\'s x-whop-signature (endpoints created through the API)', () => {
  it('given a payment of our session signed only with x-whop-signature / when delivered / then it is stored, keyed by the body\'s id, and signalled', async () => {
    const f = await sessionFixture();
    const event = whopEvent('payment.succeeded', { id: 'pay_whop1', status: 'paid', metadata: { checkout_session_token: f.token } }, 'biz_test');
    const res = await deliverWhop(event, f.secret);
    expect(res).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(await deliveriesOf(f.token)).toEqual([expect.objectContaining({ signatureValid: true, rejection: null, eventId: event.id, merchantId: f.merchantId })]);
    expect((await workflowOf(f.token))!.signals).toEqual([{ eventId: event.id, event: 'payment_succeeded', paymentId: 'pay_whop1' }]);
    // Whop retries with a fresh t: the same body id is a duplicate.
    expect((await deliverWhop(event, f.secret)).body).toEqual({ received: true, duplicate: true });
    expect((await workflowOf(f.token))!.signals).toHaveLength(1);
  });

  it('given x-whop-signature with a stale timestamp, another secret, or a changed byte / when delivered / then 401, stored as bad_signature, nothing signalled', async () => {
    const f = await sessionFixture();
    const event = whopEvent('payment.succeeded', { id: 'pay_whop2', metadata: { checkout_session_token: f.token } }, 'biz_test');
    expect((await deliverWhop(event, f.secret, { at: Math.floor(Date.now() / 1000) - 6 * 60 })).status).toBe(401);
    expect((await deliverWhop(event, `${f.secret}x`)).status).toBe(401);
    const raw = JSON.stringify(event);
    const header = signWhopWebhook(f.secret, Math.floor(Date.now() / 1000), raw);
    expect((await deliver(raw.replace('pay_whop2', 'pay_whop3'), { signature: null, headers: { 'x-whop-signature': header } })).status).toBe(401);
    expect((await deliveriesOf(f.token)).map((r) => r.rejection)).toEqual(['bad_signature', 'bad_signature', 'bad_signature']);
    expect(await workflowOf(f.token)).toBeNull();
  });

  it('given a genuine x-whop-signature delivery replayed with a webhook-id header naming another event / when that event arrives / then it is applied, not taken for a duplicate', async () => {
    const f = await sessionFixture();
    const first = whopEvent('payment.failed', { id: 'pay_whop4', metadata: { checkout_session_token: f.token } }, 'biz_test');
    const later = whopEvent('payment.succeeded', { id: 'pay_whop5', metadata: { checkout_session_token: f.token } }, 'biz_test');
    // The header is not signed under this scheme: it must not decide the dedup key.
    expect((await deliverWhop(first, f.secret, { headers: { 'webhook-id': later.id } })).status).toBe(200);
    expect((await deliverWhop(later, f.secret)).body).toEqual({ received: true, duplicate: false });
    expect((await workflowOf(f.token))!.signals.map((s) => s.eventId)).toEqual([first.id, later.id]);
  });
});

describe('deliveries about sales we did not create (issue 35 item 5)', () => {
  const foreignRows = (merchantId: string) => db().processorWebhookDelivery.findMany({ where: { merchantId }, orderBy: { receivedAt: 'asc' } });

  it('given the merchant\'s own Whop sale without our token, and an invoice.paid / when delivered signed with the merchant\'s secret / then 200, stored as not_ours with a valid signature, no workflow', async () => {
    const company = newCompany();
    const f = await sessionFixture({ businessId: company });
    const sale = whopEvent('payment.succeeded', { id: 'pay_theirs', status: 'paid', metadata: {}, company: { id: company } }, company);
    const invoice = whopEvent('invoice.paid', { id: 'inv_theirs', status: 'paid' }, company);
    expect(await deliverWhop(sale, f.secret)).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect((await deliver(invoice, { secret: f.secret })).status).toBe(200);
    // A token no session has (another deployment's, a deleted session's), in the merchant's company: not ours either.
    const stray = whopEvent('payment.succeeded', { id: 'pay_stray', metadata: { checkout_session_token: newToken() } }, company);
    expect((await deliverWhop(stray, f.secret)).status).toBe(200);
    expect((await foreignRows(f.merchantId)).map((r) => [r.event, r.rejection, r.signatureValid, r.signalledAt])).toEqual([
      ['payment.succeeded', 'not_ours', true, null], ['invoice.paid', 'not_ours', true, null], ['payment.succeeded', 'not_ours', true, null],
    ]);
    expect(JSON.parse((await foreignRows(f.merchantId))[0]!.rawBody)).toMatchObject({ data: { id: 'pay_theirs' } });
    expect(await workflowOf(f.token)).toBeNull();
  });

  it('given a delivery naming the merchant\'s company but signed with another secret / when delivered / then 401 bad_signature, stored against that merchant', async () => {
    const company = newCompany();
    const f = await sessionFixture({ businessId: company });
    const sale = whopEvent('payment.succeeded', { id: 'pay_forged', metadata: {} }, company);
    expect((await deliverWhop(sale, 'ws_forger')).status).toBe(401);
    expect((await deliver(sale, { secret: 'ws_forger' })).status).toBe(401);
    expect((await foreignRows(f.merchantId)).map((r) => [r.rejection, r.signatureValid])).toEqual([['bad_signature', false], ['bad_signature', false]]);
  });

  it('given a delivery without our token naming a company no merchant is connected to / when delivered / then 401 unknown_session', async () => {
    const company = newCompany();
    const res = await deliverWhop(whopEvent('payment.succeeded', { id: 'pay_nobody', metadata: {} }, company), 'ws_any');
    expect(res).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    const rows = await db().processorWebhookDelivery.findMany({ where: { rawBody: { contains: company } } });
    expect(rows).toEqual([expect.objectContaining({ rejection: 'unknown_session', signatureValid: false, merchantId: null })]);
  });
});

describe('Temporal unreachable', () => {
  it('given Temporal cannot be reached / when a valid event arrives / then 503 with the delivery kept, and the processor\'s retry is signalled, not taken for a duplicate', async () => {
    const port = await freePort();
    // Nothing listens there; without the retry interceptor every call fails at once.
    const connection = Connection.lazy({ address: `127.0.0.1:${port}`, interceptors: [] });
    const down = await webhookApp({ client: new Client({ connection }), connection });
    try {
      const f = await sessionFixture();
      const body = paymentEvent(f.token);

      const first = await deliver(body, { secret: f.secret, to: down });
      expect(first.status).toBe(503);
      expect(first.body.code).toBe('NOT_READY');
      expect(await deliveriesOf(f.token)).toEqual([expect.objectContaining({ eventId: body.id, signatureValid: true, rejection: null, signalledAt: null })]);
      expect(await workflowOf(f.token)).toBeNull();

      const retry = await deliver(body, { secret: f.secret });
      expect(retry).toEqual({ status: 200, body: { received: true, duplicate: false } });
      const rows = await deliveriesOf(f.token);
      expect(rows.map((r) => ({ eventId: r.eventId, rejection: r.rejection, signalled: r.signalledAt !== null }))).toEqual([
        { eventId: body.id, rejection: null, signalled: true },
        { eventId: null, rejection: null, signalled: true },
      ]);
      expect((await workflowOf(f.token))!.signals).toHaveLength(1);
      expect(await sessionEventsOf(f.token)).toHaveLength(1);

      expect((await deliver(body, { secret: f.secret })).body.duplicate).toBe(true);
    } finally {
      await down.close();
      await connection.close();
    }
  });
});

describe('end to end with the processor sandbox', () => {
  it('given a processor connected through the API and a payment for a session / when the sandbox delivers its success event 10 times at once / then one delivery is signalled and 9 are duplicates', async () => {
    const merchant = await createTestMerchant(db(), stack.app);
    const account = await fetch(`${stack.urls.processor}/_control/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const { apiKey } = (await account.json()) as { apiKey: string };
    const connected = await stack.app.inject({
      method: 'POST',
      url: '/api/merchant/processor/connect',
      headers: { authorization: `Bearer ${merchant.token}` },
      payload: { apiKey },
    });
    expect(connected.statusCode, connected.body).toBe(200);
    const connectedProductId = (await db().processorConnection.findUniqueOrThrow({ where: { merchantId: merchant.id } })).productId!;
    const token = await sessionFor(merchant.id);
    const checkout = await createProcessorClient({ apiKey, baseUrl: `${stack.urls.processor}/api/v1` }).createCheckout(
      { price: { productId: connectedProductId, amountMinor: 2500, currency: 'EUR', title: 'Test' }, metadata: { checkout_session_token: token }, redirectUrl: 'https://shop.example/r' },
      `test-${token}`,
    );
    const payment = (await (await fetch(`${stack.urls.processor}/_control/checkout_configurations/${checkout.id}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ silent: true }) })).json()) as { id: string };

    const sent = await fetch(`${stack.urls.processor}/_control/webhooks/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'payment.succeeded', objectId: payment.id, times: 10 }),
    });
    expect(sent.status).toBe(202);
    const { id: eventId } = (await sent.json()) as { id: string };
    await stack.sims.processor.webhooks.idle();

    const attempts = stack.sims.processor.webhooks.deliveries(eventId);
    expect(attempts.map((a) => a.status_code)).toEqual(Array(10).fill(200));
    const rows = (await deliveriesOf(token)).filter((r) => (JSON.parse(r.rawBody) as { id: string }).id === eventId);
    expect(rows).toHaveLength(10);
    expect(rows.every((r) => r.signatureValid && r.merchantId === merchant.id)).toBe(true);
    expect(rows.filter((r) => r.eventId === eventId && r.signalledAt !== null && r.rejection === null)).toHaveLength(1);
    expect(rows.filter((r) => r.rejection === 'duplicate' && r.eventId === null && r.signalledAt === null)).toHaveLength(9);
    expect((await workflowOf(token))!.signals).toEqual([{ eventId, event: 'payment_succeeded', paymentId: payment.id }]);
  });
});
