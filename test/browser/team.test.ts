// Team members and two-factor sign-in in the dashboard (issue 31, item 6), in a real browser against the whole
// service: the owner invites a staff member from the Team page; the invitation email (sandbox mailbox) links to the
// page that says which shop and role it is for; accepting signs the member in, and a staff member sees no API keys,
// webhooks, billing or team in the navigation and no Refund or Sync status button on a paid order the owner can
// refund (the API refuses them anyway: the API keys page, opened by its address, says why). The member then turns
// on two-factor sign-in on the Security page (QR code, secret, first code, 10 recovery codes shown once), and the
// next login asks for a code after the password.
// Screenshots of Team and Security at 1280 and 390 px go to test-artifacts/browser/.
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { shopperPays, storefrontACheckout, storefrontAMerchant, waitFor } from '../e2e/checkout-helpers.js';

const b = useBrowserStack({ targets: ['checkout', 'checkout-takeover', 'dashboard'] });

const PASSWORD = 'correct horse battery 9';
const MEMBER_PASSWORD = 'a staff member password 7';

async function logIn(context: BrowserContext, email: string, password: string, next: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${b.stack.apiUrl}/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  return page;
}

const navLinks = async (page: Page) => (await page.locator('.sidebar nav a').allTextContents()).map((t) => t.trim());
/** Wider than the viewport: the page scrolls sideways. */
const overflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

describe('team and two-factor sign-in', () => {
  it('given an owner / invites a staff member who accepts by email, sees no refunds or keys, enrols two-factor, and then signs in with a code', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Team Shoes');
    const order = await storefrontACheckout(stack, merchant.shop);
    await shopperPays(stack, order);
    await waitFor('the paid order', async () => ((await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token: order } })).status === 'COMPLETED' ? true : undefined));
    await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });

    // The owner invites.
    const ownerContext = await b.newContext();
    const owner = await logIn(ownerContext, merchant.email, PASSWORD, '/dashboard/team');
    await owner.waitForURL(`${stack.apiUrl}/dashboard/team`);
    expect(await navLinks(owner)).toEqual(expect.arrayContaining(['API keys', 'Webhooks', 'Billing', 'Team', 'Security']));
    await owner.getByRole('button', { name: 'Invite member' }).click();
    const staffEmail = `staff-${Date.now()}@team.test`;
    await owner.getByLabel('Email', { exact: true }).fill(staffEmail);
    await owner.getByLabel('Role', { exact: true }).selectOption('staff');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.getByText(`Invitation sent to ${staffEmail}`).waitFor();
    await owner.locator(`[data-invitation="${staffEmail}"]`).waitFor();
    await screenshot(owner, 'team-1280');
    expect(await overflow(owner)).toBeLessThanOrEqual(0);
    // The owner may refund the paid order.
    await owner.goto(`${stack.apiUrl}/dashboard/orders/${order}`);
    await owner.getByRole('button', { name: 'Refund…' }).waitFor();

    // The invitee opens the email's link.
    const mail = await waitFor('the invitation email', async () => stack.sims.email.messages({ to: staffEmail, tag: 'member_invitation' })[0]);
    const link = /(http\S+\/accept-invite\?token=[A-Za-z0-9_-]+)/.exec(mail.TextBody ?? '')?.[1];
    expect(link).toBeDefined();
    const staffContext = await b.newContext();
    const staff = await staffContext.newPage();
    await staff.goto(link!);
    await staff.getByRole('heading', { name: 'Join Team Shoes' }).waitFor();
    expect(await staff.locator('[data-invited-role]').textContent()).toBe('Staff');
    await staff.getByLabel('Password').fill(MEMBER_PASSWORD);
    await staff.getByRole('button', { name: 'Accept and sign in' }).click();
    await staff.waitForURL(`${stack.apiUrl}/dashboard`);
    await staff.locator('[data-viewer-role="staff"]').waitFor();
    const links = await navLinks(staff);
    expect(links).toEqual(expect.arrayContaining(['Orders', 'Statistics', 'Security']));
    for (const hidden of ['API keys', 'Webhooks', 'Billing', 'Team']) expect(links).not.toContain(hidden);
    // The paid order: no Refund button, no Sync status.
    await staff.goto(`${stack.apiUrl}/dashboard/orders/${order}`);
    await staff.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(await staff.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
    expect(await staff.getByRole('button', { name: 'Sync status' }).count()).toBe(0);
    // The API keys page by its address: it says the role cannot open it, and offers no key; the API refuses anyway.
    await staff.goto(`${stack.apiUrl}/dashboard/api-keys`);
    await staff.locator('[data-role-refused="staff"]').waitFor();
    expect(await staff.getByRole('button', { name: 'New API key' }).count()).toBe(0);
    const refused = await staff.evaluate<{ status: number; body: { details?: { role?: string } } }>("fetch('/api/merchant/api-keys').then(async (r) => ({ status: r.status, body: await r.json() }))");
    expect(refused.status).toBe(403);
    expect(refused.body.details?.role).toBe('staff');
    // The owner's Team page lists the new member as staff.
    await owner.goto(`${stack.apiUrl}/dashboard/team`);
    await owner.locator(`[data-member="${staffEmail}"][data-role="staff"]`).waitFor();

    // Two-factor enrolment, on a phone.
    const phoneContext = await b.newContext({ mobile: true });
    const phone = await logIn(phoneContext, staffEmail, MEMBER_PASSWORD, '/dashboard/security');
    await phone.waitForURL(`${stack.apiUrl}/dashboard/security`);
    await phone.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = await phone.locator('[data-totp-secret]').getAttribute('data-totp-secret');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await phone.locator('img.qr').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(100);
    await screenshot(phone, 'security-enrol-390');
    expect(await overflow(phone)).toBeLessThanOrEqual(0);
    await phone.getByLabel('Code from the app').fill(TOTP.generate({ secret: Secret.fromBase32(secret!) }));
    await phone.getByRole('button', { name: 'Turn on' }).click();
    await phone.locator('[data-recovery-codes="10"]').waitFor();
    const codes = await phone.locator('.code-list code').allTextContents();
    expect(codes).toHaveLength(10);
    await screenshot(phone, 'security-codes-390');
    await phone.getByRole('button', { name: 'I have stored them' }).click();
    await phone.locator('[data-two-factor="on"]').waitFor();
    expect(await phone.locator('.recovery-codes').count()).toBe(0);

    // The owner's Team page at 390 px shows it.
    const ownerPhone = await logIn(await b.newContext({ mobile: true }), merchant.email, PASSWORD, '/dashboard/team');
    await ownerPhone.waitForURL(`${stack.apiUrl}/dashboard/team`);
    await ownerPhone.locator(`[data-member="${staffEmail}"] [data-status="ACTIVE"]`).waitFor();
    await screenshot(ownerPhone, 'team-390');
    expect(await overflow(ownerPhone)).toBeLessThanOrEqual(0);

    // The next login asks for a code after the password; the code of the next 30 seconds (the one used is spent).
    const again = await logIn(await b.newContext(), staffEmail, MEMBER_PASSWORD, '/dashboard/security');
    await again.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await again.getByRole('textbox', { name: 'Code' }).fill('000000');
    await again.getByRole('button', { name: 'Verify' }).click();
    await again.getByText('This code is wrong, expired or already used').waitFor();
    await again.getByRole('textbox', { name: 'Code' }).fill(TOTP.generate({ secret: Secret.fromBase32(secret!), timestamp: Date.now() + 30_000 }));
    await again.getByRole('button', { name: 'Verify' }).click();
    await again.waitForURL(`${stack.apiUrl}/dashboard/security`);
    await again.locator('[data-two-factor="on"]').waitFor();
    await screenshot(again, 'security-1280');
    expect(await overflow(again)).toBeLessThanOrEqual(0);
  });
});
