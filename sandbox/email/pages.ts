// The sandbox mailbox for humans: every accepted message, newest first, and one page per message with its
// headers, the HTML body isolated in a sandboxed iframe (no scripts, no same-origin access) and the text body.
import { escapeHtml } from './html.js';
import type { OutboundMessage } from './validate.js';

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1f2328}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #d0d7de;vertical-align:top}
th{background:#f6f8fa;font-weight:600}a{color:#0969da}.muted{color:#656d76}.tag{background:#ddf4ff;border-radius:1em;padding:0 .5em}
iframe{width:100%;height:520px;border:1px solid #d0d7de;border-radius:6px}pre{white-space:pre-wrap;background:#f6f8fa;padding:1rem;border-radius:6px}`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function mailboxPage(messages: OutboundMessage[]): string {
  const rows = messages
    .map(
      (m) => `<tr><td class="muted">${escapeHtml(m.SubmittedAt)}</td><td>${escapeHtml(m.From)}</td><td>${escapeHtml([m.To, m.Cc, m.Bcc].filter(Boolean).join(', '))}</td>
<td><a href="/messages/${encodeURIComponent(m.MessageID)}">${escapeHtml(m.Subject)}</a></td><td>${m.Tag ? `<span class="tag">${escapeHtml(m.Tag)}</span>` : ''}</td></tr>`,
    )
    .join('\n');
  const table = messages.length
    ? `<table><thead><tr><th>Time</th><th>From</th><th>To</th><th>Subject</th><th>Tag</th></tr></thead><tbody>${rows}</tbody></table>`
    : '<p class="muted">No messages yet.</p>';
  return layout('Sandbox mailbox', `<h1>Sandbox mailbox</h1><p class="muted">${messages.length} message(s), newest first.</p>${table}`);
}

export function messagePage(m: OutboundMessage): string {
  const headerRows: Array<[string, string]> = [
    ['Message ID', m.MessageID],
    ['Submitted', m.SubmittedAt],
    ['From', m.From],
    ['To', m.To],
    ['Cc', m.Cc],
    ['Bcc', m.Bcc],
    ['Reply-To', m.ReplyTo],
    ['Subject', m.Subject],
    ['Stream', m.MessageStream],
    ['Tag', m.Tag],
    ['Template', m.TemplateId ? `${m.TemplateId}${m.TemplateAlias ? ` (${m.TemplateAlias})` : ''}` : ''],
    ...Object.entries(m.Metadata).map(([k, v]): [string, string] => [`Metadata ${k}`, v]),
    ...m.Headers.map((h): [string, string] => [`Header ${h.Name}`, h.Value]),
    ...m.Attachments.map((a): [string, string] => ['Attachment', `${a.Name} (${a.ContentType}, ${a.ContentLength} bytes)`]),
  ];
  const headers = headerRows
    .filter(([, v]) => v)
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  const html = m.HtmlBody ? `<h2>HTML body</h2><iframe sandbox srcdoc="${escapeHtml(m.HtmlBody)}" title="HTML body"></iframe>` : '';
  const textBody = m.TextBody ? `<h2>Text body</h2><pre>${escapeHtml(m.TextBody)}</pre>` : '';
  return layout(m.Subject, `<p><a href="/">&larr; Mailbox</a></p><h1>${escapeHtml(m.Subject)}</h1><table>${headers}</table>${html}${textBody}`);
}

export function notFoundPage(id: string): string {
  return layout('Not found', `<p><a href="/">&larr; Mailbox</a></p><h1>Message not found</h1><p>No message with id ${escapeHtml(id)}.</p>`);
}
