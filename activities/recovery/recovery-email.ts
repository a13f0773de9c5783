// The recovery reminder (docs/recovery.md): in the shopper's language (domain/shopper-emails), in the shop's colours,
// with the cart as it was left (prices are re-checked when the link is opened, and the email says so), a button back
// to the checkout and a one-click unsubscribe link. Every interpolated value is escaped for HTML.
import { escapeHtml, type RenderedEmail } from '../email/account-email-templates.js';
import { fillMessage } from '../../domain/checkout/checkout-messages/fill.js';
import { SHOPPER_EMAIL_LANGUAGES, shopperEmailLanguage, type ShopperEmailKey } from '../../domain/checkout/shopper-emails/index.js';

export interface ReminderEmailData {
  shop: { name: string; primaryColor: string | null };
  locale: string | null;
  lines: Array<{ label: string; amount: string }>;
  subtotal: string;
  restoreUrl: string;
  unsubscribeUrl: string;
}

const colorOf = (c: string | null) => (c && /^#[0-9a-f]{6}$/i.test(c) ? c : '#111111');

export function renderRecoveryReminder(d: ReminderEmailData): RenderedEmail {
  const language = shopperEmailLanguage(d.locale);
  const words = SHOPPER_EMAIL_LANGUAGES[language];
  const say = (key: ShopperEmailKey) => fillMessage(words[key], { shop: d.shop.name });
  const color = colorOf(d.shop.primaryColor);
  const p = (text: string, style = '') => `<p style="line-height:1.5${style}">${escapeHtml(text)}</p>`;
  const rows = d.lines.map((l) => `<tr><td style="padding:6px 0">${escapeHtml(l.label)}</td><td style="padding:6px 0;text-align:right">${escapeHtml(l.amount)}</td></tr>`).join('\n');
  const html = `<!doctype html><html lang="${language}"><body style="font-family:system-ui,sans-serif;background:#f6f6f7;padding:24px;color:#222">
<div style="max-width:560px;margin:auto;background:#fff;border-radius:8px;padding:28px;border-top:4px solid ${color}">
<div style="font-size:22px;font-weight:600;color:${color}">${escapeHtml(d.shop.name)}</div>
<h1 style="font-size:20px;margin:20px 0 12px">${escapeHtml(say('reminderTitle'))}</h1>
${p(say('reminderIntro'))}
<table style="width:100%;border-collapse:collapse;margin:16px 0">
${rows}
<tr><td style="padding:6px 0;border-top:1px solid #e3e3e3;font-weight:600">${escapeHtml(fillMessage(words.subtotal, {}))}</td><td style="padding:6px 0;border-top:1px solid #e3e3e3;text-align:right;font-weight:600">${escapeHtml(d.subtotal)}</td></tr>
</table>
<p><a href="${escapeHtml(d.restoreUrl)}" style="display:inline-block;background:${color};color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${escapeHtml(say('reminderButton'))}</a></p>
${p(say('reminderPrices'))}
${p(say('reminderWhy'), ';color:#666;font-size:13px')}
<p style="color:#666;font-size:13px"><a href="${escapeHtml(d.unsubscribeUrl)}" style="color:#666">${escapeHtml(say('reminderUnsubscribe'))}</a></p>
</div></body></html>`;
  const text = [
    say('reminderIntro'),
    [...d.lines.map((l) => `${l.label}  ${l.amount}`), `${words.subtotal}  ${d.subtotal}`].join('\n'),
    `${say('reminderButton')}: ${d.restoreUrl}`,
    say('reminderPrices'),
    `${say('reminderWhy')}\n${say('reminderUnsubscribe')}: ${d.unsubscribeUrl}`,
  ].join('\n\n') + '\n';
  return { subject: say('reminderSubject').replace(/\s+/g, ' ').trim(), html, text };
}
