// Paying in the processor's embedded checkout on our page (the simulator's iframe, held to @whop/checkout by
// test/contract/processor-embed.test.ts), for the browser tests.
import { expect } from 'vitest';
import type { Frame, Page } from 'playwright-core';

/** The embed's iframe on our page, once it reported its height (the package sets it from the iframe's `resize`). */
export async function embedFrame(page: Page): Promise<Frame> {
  const iframe = page.locator('.embed iframe');
  await iframe.waitFor({ timeout: 15_000 });
  await expect.poll(() => iframe.evaluate((el) => (el as unknown as { style: { height: string } }).style.height), { timeout: 15_000 }).not.toBe('480px');
  const frame = (await (await iframe.elementHandle())!.contentFrame())!;
  await frame.locator('#card_number').waitFor();
  return frame;
}

/** Submits a card in the embed; `declined`: waits for the frame's next page (a paid one is taken away by our page at once). */
export async function payInEmbed(frame: Frame, card: string, opts: { declined?: boolean } = {}): Promise<void> {
  await frame.fill('#card_number', card);
  await frame.fill('#expiry', '12/34');
  await frame.fill('#cvc', '123');
  if (opts.declined) await Promise.all([frame.waitForNavigation(), frame.click('button[type=submit]')]);
  else await frame.click('button[type=submit]');
}
