// Abandoned-checkout recovery in a real browser against the whole service (docs/recovery.md): with the merchant's
// recovery on, the checkout's email step shows the reminder box unticked; ticking it records the consent (time and
// wording) and starts the reminder schedule; the reminder (sent here by its activity, as the schedule would after its
// delay: the schedule itself is tested on the time-skipping server, test/workflows/recovery-timers.test.ts) is read in
// the sandbox mailbox, and its link reopens the checkout on another device with the cart, the email and the consent.
// The merchant's recovery settings are looked at at 1280 and 390 px. Screenshots go to test-artifacts/browser/.
import { describe, expect, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { screenshot, useBrowserStack } from './harness.js';
import { api, storefrontACheckout, storefrontAMerchant, waitFor } from '../e2e/checkout-helpers.js';
import { CHECKOUT_LANGUAGES } from '../../domain/checkout/checkout-messages/index.js';
import { createRecoveryActivities } from '../../activities/recovery/recovery.js';
import { createEmailClient } from '../../integrations/email/index.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const b = useBrowserStack({ targets: ['checkout', 'checkout-takeover', 'dashboard'] });
const PASSWORD = 'correct horse battery 9';
const en = CHECKOUT_LANGUAGES.en;

describe('abandoned-checkout recovery with consent', () => {
  it('given recovery on / the box is unticked, ticking records the consent, the reminder arrives and its link reopens the checkout', async () => {
    const { stack } = b;
    const db = stack.database.db;
    const merchant = await storefrontAMerchant(stack, 'Reminder Outfitters');
    const set = await api(stack, 'PATCH', '/api/merchant/recovery', { enabled: true, delaysMinutes: [60, 1440] }, merchant.token);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };

    let left = '';
    for (const mobile of [false, true]) {
      const width = mobile ? 390 : 1280;
      const email = `jane-${width}@customer.test`;
      const token = await storefrontACheckout(stack, merchant.shop);
      const page = await (await b.newContext({ mobile })).newPage();
      await page.goto(`${checkoutOrigin}/checkout/${token}`);
      await page.getByRole('heading', { name: en.headline, level: 1 }).waitFor();

      const box = page.getByRole('checkbox', { name: en.recoveryConsent });
      expect(await box.isChecked()).toBe(false);
      await page.getByLabel(en.email, { exact: true }).fill(email);
      await page.getByLabel(en.email, { exact: true }).press('Tab');
      await box.scrollIntoViewIfNeeded();
      await screenshot(page, `recovery-1-consent-unticked-${width}`);
      // Nothing recorded while it is unticked: the email is not kept before payment without consent.
      expect(await db.checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ email: null, recoveryConsentAt: null });

      await box.check();
      const row = await waitFor('the consent', async () => {
        const r = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
        return r.recoveryConsentAt ? r : undefined;
      });
      expect(row).toMatchObject({ email, recoveryConsentWording: 'v1:en' });
      // The route records the consent, then starts the reminders' workflow: the row can be seen a moment before the start lands.
      const recovery = await waitFor('the recovery workflow', () =>
        stack.temporal.client.workflow.getHandle(WORKFLOWS.checkoutRecovery.id(token)).describe().catch((e: unknown) => {
          if (e instanceof WorkflowNotFoundError) return undefined;
          throw e;
        }));
      expect(recovery.status.name).toBe('RUNNING');
      await screenshot(page, `recovery-2-consent-ticked-${width}`);
      left = token;
      await page.close();
    }

    // The first reminder, as the schedule sends it once its hour has passed.
    const reminders = createRecoveryActivities({ db, config: stack.config, email: createEmailClient({ serverToken: stack.config.email.serverToken ?? '', apiUrl: stack.config.email.apiUrl }) });
    expect(await reminders.sendRecoveryReminder({ token: left, step: 0 })).toEqual({ sent: true, step: 1 });
    const [mail] = stack.sims.email.messages({ to: 'jane-390@customer.test' }).filter((m) => m.Tag === 'recovery_reminder');
    expect(mail?.Subject).toBe('You left something in your cart – Reminder Outfitters');
    const mailbox = await (await b.newContext()).newPage();
    await mailbox.goto(`${stack.urls.email}/messages/${mail!.MessageID}`);
    await screenshot(mailbox, 'recovery-3-reminder-email-1280');
    const restore = /(http\S+\/recover\?s=[\w-]+)/.exec(mail!.TextBody ?? '')?.[1];
    expect(restore).toBeDefined();
    expect(restore!.startsWith(`${checkoutOrigin}/api/checkout/${left}/recover?s=`)).toBe(true);

    // Another device: the link reopens the same checkout, cart re-checked, with the email and the consent.
    const phone = await (await b.newContext({ mobile: true })).newPage();
    await phone.goto(restore!);
    await phone.waitForURL(`${checkoutOrigin}/checkout/${left}`);
    await phone.getByRole('heading', { name: en.headline, level: 1 }).waitFor();
    expect(await phone.getByLabel(en.email, { exact: true }).inputValue()).toBe('jane-390@customer.test');
    expect(await phone.getByRole('checkbox', { name: en.recoveryConsent }).isChecked()).toBe(true);
    await screenshot(phone, 'recovery-4-restored-390');
    const opened = await db.sessionEvent.findMany({ where: { token: left, type: 'recovery_link_opened' } });
    expect(opened).toHaveLength(1);

    // The merchant's settings, on a laptop and a phone.
    await db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });
    for (const mobile of [false, true]) {
      const width = mobile ? 390 : 1280;
      const page = await (await b.newContext({ mobile })).newPage();
      await page.goto(`${stack.apiUrl}/login?next=/dashboard/settings`);
      await page.getByLabel('Email').fill(merchant.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${stack.apiUrl}/dashboard/settings`);
      const card = page.locator('#recovery');
      await card.getByLabel('2nd reminder (hours)').waitFor();
      expect(await card.getByLabel('Send reminders to shoppers who consented').isChecked()).toBe(true);
      expect(await card.getByLabel('1st reminder (hours)').inputValue()).toBe('1');
      expect(await card.getByLabel('2nd reminder (hours)').inputValue()).toBe('24');
      expect(await page.locator('html').evaluate((html) => html.scrollWidth)).toBeLessThanOrEqual(width);
      if (!mobile) {
        // A schedule out of order is refused with the API's reason, and nothing changes.
        await card.getByLabel('3rd reminder (hours)').fill('12');
        await card.getByRole('button', { name: 'Save recovery' }).click();
        await card.getByText('each reminder comes after the one before').waitFor();
        expect((await db.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).recoveryDelaysMinutes).toEqual([60, 1440]);
        await card.getByLabel('3rd reminder (hours)').fill('72');
        await card.getByRole('button', { name: 'Save recovery' }).click();
        await card.getByText('Recovery is on').waitFor();
        expect((await db.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).recoveryDelaysMinutes).toEqual([60, 1440, 4320]);
      }
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, `recovery-5-settings-${width}`);
      await page.goto(`${stack.apiUrl}/dashboard/stats`);
      const stats = page.locator('[data-recovery]');
      await stats.waitFor();
      await stats.scrollIntoViewIfNeeded();
      await screenshot(page, `recovery-6-stats-${width}`);
    }
  }, 240_000);
});
