// The texts of account emails. Every interpolated value is escaped for HTML.
export type AccountEmailKind = 'email_verification' | 'password_reset' | 'member_invitation';

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/**
 * A country's name in the shopper's language ("DE" → "Deutschland" for de-DE, "Germany" without a language), for
 * addresses in emails; the code itself when the runtime has no name for it.
 */
export function countryName(code: string, locale: string | null | undefined): string {
  try {
    return new Intl.DisplayNames(locale ? [locale, 'en'] : ['en'], { type: 'region', fallback: 'code' }).of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * The layout of the service's own emails to merchants (account links, plan billing): a title, paragraphs and one
 * button; `linkFallback` adds the link as text for mail clients that block buttons (one-time links).
 */
export function accountLayout(title: string, paragraphs: string[], button: { label: string; href: string }, opts: { linkFallback?: boolean } = {}): string {
  const fallback = opts.linkFallback ? `\n<p style="color:#666;font-size:13px">Or paste this link into your browser: ${escapeHtml(button.href)}</p>` : '';
  return `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;background:#f6f6f7;padding:24px">
<div style="max-width:520px;margin:auto;background:#fff;border-radius:8px;padding:28px">
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(title)}</h1>
${paragraphs.map((p) => `<p style="line-height:1.5">${escapeHtml(p)}</p>`).join('\n')}
<p><a href="${escapeHtml(button.href)}" style="display:inline-block;background:#111;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${escapeHtml(button.label)}</a></p>${fallback}
</div></body></html>`;
}

/** The invitation to join a merchant's team (api/routes/merchant/members.ts). */
export function renderInvitationEmail(data: { shopName: string; invitedBy: string; role: string; link: string }): RenderedEmail {
  const intro = `${data.invitedBy} invited you to the checkout dashboard of ${data.shopName} as ${data.role}. Choose a password to join:`;
  const note = 'The link works once and expires in 7 days. If you did not expect it, ignore this email.';
  const subject = `Join the team of ${data.shopName}`;
  return { subject, html: accountLayout(subject, [intro, note], { label: 'Accept the invitation', href: data.link }, { linkFallback: true }), text: `${intro}\n\n${data.link}\n\n${note}\n` };
}

export function renderAccountEmail(kind: Exclude<AccountEmailKind, 'member_invitation'>, data: { shopName: string; link: string }): RenderedEmail {
  if (kind === 'email_verification') {
    const intro = `Welcome! Confirm this email address to set up the checkout of ${data.shopName}.`;
    const note = 'The link works once and expires in 48 hours.';
    return {
      subject: 'Confirm your email address',
      html: accountLayout('Confirm your email address', [intro, note], { label: 'Confirm email', href: data.link }, { linkFallback: true }),
      text: `${intro}\n\n${data.link}\n\n${note}\n`,
    };
  }
  const intro = `Someone asked to reset the password of the checkout account of ${data.shopName}. If it was you, choose a new password:`;
  const note = 'The link works once and expires in 1 hour. If you did not ask for it, ignore this email: your password stays as it is.';
  return {
    subject: 'Reset your password',
    html: accountLayout('Reset your password', [intro, note], { label: 'Choose a new password', href: data.link }, { linkFallback: true }),
    text: `${intro}\n\n${data.link}\n\n${note}\n`,
  };
}
