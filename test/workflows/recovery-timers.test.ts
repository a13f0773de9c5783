// The abandoned-checkout recovery schedule (workflows/recovery/recovery.ts) on the time-skipping test server, with the real
// activities against a real database and the Postmark sandbox mailbox: hours and days pass in seconds. Reminders go at
// the merchant's delays after the shopper's consent, none after payment, none after unsubscribe, none without consent,
// and each exactly once even when its activity is retried after the email went out.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { checkoutRecoveryWorkflow } from '../../workflows/recovery/recovery.js';
import { stopRecoverySignal } from '../../workflows/recovery/recovery.messages.js';
import { newSessionToken } from '../../api/cart-sources.js';
import { startActivityRig, type ActivityRig } from '../harness/activity-rig.js';
import { startTimeSkipping, uniqueTaskQueue, type TimeSkippingTemporal } from '../harness/temporal.js';
import { writeHistory } from '../../scripts/lib/histories.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let rig: ActivityRig;
let ts: TimeSkippingTemporal;

beforeAll(async () => {
  rig = await startActivityRig({ taskQueue: uniqueTaskQueue('ts') });
});
afterAll(async () => {
  await rig?.close();
});
beforeEach(async () => {
  ts = await startTimeSkipping();
});
afterEach(async () => {
  await ts?.close();
});

const db = () => rig.database.db;

/**
 * SAVE_HISTORIES=1 writes the run's history to workflows/__histories__/<name>.json, where workflows/replay.test.ts replays
 * it against the current code (how the committed recovery histories were recorded).
 */
async function saveHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.SAVE_HISTORIES) writeHistory(`workflows/__histories__/${name}.json`, await handle.fetchHistory());
}

/** A merchant with recovery on and the given schedule, and one open session of theirs whose shopper consented now (workflow time). */
async function leftCheckout(opts: { delays?: number[]; consent?: boolean; locale?: string } = {}) {
  const i = randomBytes(4).toString('hex');
  const m = await db().merchant.create({
    data: {
      email: `owner-${i}@shop.test`, passwordHash: 'x', shopName: `Recovery Shop ${i}`, phone: '+49 30 1234', slug: `rec-${i}`,
      recoveryEnabled: true, recoveryDelaysMinutes: opts.delays ?? [60, 24 * 60, 72 * 60],
    },
  });
  const token = newSessionToken();
  const email = `shopper-${i}@example.com`;
  const consentAt = new Date(Number(await ts.env.currentTimeMs()));
  await db().checkoutSession.create({
    data: {
      token, merchantId: m.id, platform: 'STOREFRONT_B', currency: 'EUR', fxRates: { date: null, rates: {} },
      items: [{ productId: '11', variantId: null, title: 'Linen shirt', variantTitle: null, quantity: 2, unitPrice: 2450, imageUrl: null }],
      subtotalMinor: 4900, email, shopperLocale: opts.locale ?? null,
      ...(opts.consent === false ? {} : { recoveryConsentAt: consentAt, recoveryConsentWording: 'v1:en' }),
    },
  });
  return { merchant: m, token, email, consentAt: consentAt.getTime() };
}

const start = (token: string) =>
  ts.env.client.workflow.start(checkoutRecoveryWorkflow, { taskQueue: ts.taskQueue, workflowId: WORKFLOWS.checkoutRecovery.id(token), args: [{ token }] });

/** The reminders in the sandbox mailbox for `email`. */
const reminders = (email: string) => rig.sims.email.messages({ to: email }).filter((m) => m.Tag === 'recovery_reminder');

/** When each email of the run was sent (the sending activity's completion), in workflow time, in hours after `from`. */
async function sendTimes(handle: WorkflowHandle, from: number): Promise<number[]> {
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Map(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendRecoveryReminder').map((e) => [String(e.eventId), e]));
  return events
    .filter((e) => e.activityTaskCompletedEventAttributes && scheduled.has(String(e.activityTaskCompletedEventAttributes.scheduledEventId)))
    .map((e) => Math.round(((Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6)) - from) / (HOUR / 10)) / 10);
}

describe('abandoned-checkout recovery (time-skipping)', () => {
  it('given a shopper who consented and left / reminders go at 1 h, 24 h and 72 h after the consent, each once, then the series ends', async () => {
    const { token, email, consentAt } = await leftCheckout({ locale: 'de-DE' });
    const { result, handle } = await ts.withWorker(rig.activities, async () => {
      const handle = await start(token);
      await ts.env.sleep('30 minutes');
      expect(reminders(email)).toHaveLength(0);
      await ts.env.sleep('1 hour');
      expect(reminders(email)).toHaveLength(1);
      return { result: await handle.result(), handle };
    });
    expect(result).toEqual({ sent: [1, 2, 3], ended: 'schedule_done' });
    expect(await sendTimes(handle, consentAt)).toEqual([1, 24, 72]);
    await saveHistory(handle, 'recovery-three-reminders');
    const mail = reminders(email);
    expect(mail).toHaveLength(3);
    // In the shopper's language, from the shop, with the signed links back and out.
    expect(mail[0]!.Subject).toMatch(/^Sie haben etwas im Warenkorb vergessen – Recovery Shop /);
    expect(mail[0]!.TextBody).toMatch(new RegExp(`/api/checkout/${token}/recover\\?s=[\\w-]{43}`));
    expect(mail[0]!.TextBody).toMatch(new RegExp(`/api/checkout/${token}/unsubscribe\\?s=[\\w-]{43}`));
    expect(mail[0]!.TextBody).toContain('2 × Linen shirt');
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(row.recoveryRemindersSent).toBe(3);
    // Recorded in real time by the activity (the stats compare it with the real time of payment).
    expect(row.recoveryReminderSentAt).not.toBeNull();
    const events = await db().sessionEvent.findMany({ where: { token, type: 'recovery_reminder_sent' } });
    expect(events.map((e) => (e.data as { step: number }).step).sort()).toEqual([1, 2, 3]);
  });

  it('given a shopper who pays after the first reminder / no reminder after the payment', async () => {
    const { token, email } = await leftCheckout();
    const result = await ts.withWorker(rig.activities, async () => {
      const handle = await start(token);
      await ts.env.sleep('2 hours');
      expect(reminders(email)).toHaveLength(1);
      // The session's workflow records the payment (the status is its to write); the reminder looks before it sends.
      await db().checkoutSession.update({ where: { token }, data: { status: 'COMPLETED', completedAt: new Date(), totalMinor: 4900 } });
      return handle.result();
    });
    expect(result).toEqual({ sent: [1], ended: 'paid' });
    await ts.env.sleep('100 hours');
    expect(reminders(email)).toHaveLength(1);
  });

  it('given a shopper who unsubscribes from the first reminder / the series stops at once, nothing more is sent', async () => {
    const { token, email } = await leftCheckout();
    const { result, closedAfter } = await ts.withWorker(rig.activities, async () => {
      const handle = await start(token);
      await ts.env.sleep('2 hours');
      expect(reminders(email)).toHaveLength(1);
      // What POST /api/checkout/:token/unsubscribe does: the opt-out recorded, the run told to stop.
      await db().checkoutSession.update({ where: { token }, data: { recoveryOptedOutAt: new Date() } });
      await handle.signal(stopRecoverySignal, 'opted_out');
      const result = await handle.result();
      const { startTime, closeTime } = await handle.describe();
      await saveHistory(handle, 'recovery-unsubscribed-after-first');
      return { result, closedAfter: closeTime!.getTime() - startTime.getTime() };
    });
    expect(result).toEqual({ sent: [1], ended: 'opted_out' });
    // Stopped by the signal, not at the next reminder's time (24 h).
    expect(closedAfter).toBeLessThan(3 * HOUR);
    expect(reminders(email)).toHaveLength(1);
  });

  it('given an opt-out recorded without the signal arriving / the next reminder finds it and is not sent', async () => {
    const { token, email } = await leftCheckout();
    const result = await ts.withWorker(rig.activities, async () => {
      const handle = await start(token);
      await ts.env.sleep('2 hours');
      await db().checkoutSession.update({ where: { token }, data: { recoveryOptedOutAt: new Date() } });
      return handle.result();
    });
    expect(result).toEqual({ sent: [1], ended: 'opted_out' });
    expect(reminders(email)).toHaveLength(1);
  });

  it('given a shopper who never ticked the box / no reminder at all', async () => {
    const { token, email } = await leftCheckout({ consent: false });
    const result = await ts.withWorker(rig.activities, async () => (await start(token)).result());
    expect(result).toEqual({ sent: [], ended: 'no_consent' });
    await ts.env.sleep('100 hours');
    expect(reminders(email)).toHaveLength(0);
    expect(await db().emailMessage.count({ where: { kind: 'recovery_reminder', to: email } })).toBe(0);
  });

  it('given consent withdrawn before the first reminder / none is sent', async () => {
    const { token, email } = await leftCheckout();
    const result = await ts.withWorker(rig.activities, async () => {
      const handle = await start(token);
      await ts.env.sleep('20 minutes');
      await db().checkoutSession.update({ where: { token }, data: { recoveryConsentAt: null, recoveryConsentWording: null } });
      return handle.result();
    });
    expect(result).toEqual({ sent: [], ended: 'no_consent' });
    expect(reminders(email)).toHaveLength(0);
  });

  it('given every send whose worker is lost after the email went out (the activity retried) / each reminder is still sent exactly once', async () => {
    const { token, email } = await leftCheckout();
    const lost = new Set<number>();
    const activities = {
      ...rig.activities,
      async sendRecoveryReminder(input: { token: string; step: number }) {
        const outcome = await rig.activities.sendRecoveryReminder(input);
        // The first attempt of each step dies after Postmark accepted the email: Temporal retries it.
        if (!lost.has(input.step)) {
          lost.add(input.step);
          throw new Error('worker lost after the email was sent');
        }
        return outcome;
      },
    };
    const result = await ts.withWorker(activities, async () => (await start(token)).result());
    expect(result).toEqual({ sent: [1, 2, 3], ended: 'schedule_done' });
    expect(lost).toEqual(new Set([0, 1, 2]));
    expect(reminders(email)).toHaveLength(3);
    expect(new Set(reminders(email).map((m) => m.Metadata?.step))).toEqual(new Set(['1', '2', '3']));
    expect(await db().emailMessage.count({ where: { kind: 'recovery_reminder', to: email, status: 'SENT' } })).toBe(3);
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token } })).recoveryRemindersSent).toBe(3);
  });

  it('given the merchant switching recovery off after the first reminder / the series ends', async () => {
    const { token, email, merchant } = await leftCheckout();
    const result = await ts.withWorker(rig.activities, async () => {
      const handle = await start(token);
      await ts.env.sleep('2 hours');
      await db().merchant.update({ where: { id: merchant.id }, data: { recoveryEnabled: false } });
      return handle.result();
    });
    expect(result).toEqual({ sent: [1], ended: 'recovery_off' });
    expect(reminders(email)).toHaveLength(1);
  });
});
