// Our outgoing webhooks as a merchant's endpoint receives them: Standard Webhooks (https://www.standardwebhooks.com/)
// signed with the `standardwebhooks` library (webhook-id, webhook-timestamp in unix seconds, webhook-signature
// `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one signature per secret during a rotation, space-separated),
// POSTed as application/json. One POST per call: the answer, whatever it is, is the caller's to judge. Redirects
// are never followed (a 3xx is the answer). The URL passes the SSRF guard again now, and the connection is made
// through the guard's lookup, so the address connected to is the address checked (no DNS rebinding in between).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { UnsafeUrlError, type UrlGuard } from '../../security/ssrf.js';

export const USER_AGENT = 'CheckoutService-Webhooks/1.0';

export interface OutgoingWebhook {
  url: string;
  /** msg_…: the webhook-id, the same on every attempt of one delivery. */
  msgId: string;
  /** The exact JSON bytes. */
  body: string;
  /** whsec_… secrets to sign with: the current one first, then the previous one while a rotation overlaps. */
  secrets: readonly string[];
  /** webhook-timestamp; receivers refuse one more than 5 minutes from their clock. */
  timestamp: Date;
}

export interface WebhookAnswer {
  /** The HTTP status, or null when there was none (refused by the guard, no connection, time-out). */
  status: number | null;
  retryAfter: string | null;
  /** The first `bodyBytes` of the answer's body (UTF-8, lossy). */
  body: string | null;
  durationMs: number;
  /** Why there was no answer. */
  error: string | null;
}

/** The webhook-signature header: `v1,<sig>` per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], msgId: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(msgId, timestamp, body)).join(' ');
}

export function webhookHeaders(webhook: OutgoingWebhook): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': webhook.msgId,
    'webhook-timestamp': String(Math.floor(webhook.timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(webhook.secrets, webhook.msgId, webhook.timestamp, webhook.body),
  };
}

/** POSTs the webhook once; never throws for what the endpoint does (that is the answer). */
export async function postWebhook(webhook: OutgoingWebhook, opts: { urlGuard: UrlGuard; timeoutMs: number; bodyBytes: number }): Promise<WebhookAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const noAnswer = (error: string): WebhookAnswer => ({ status: null, retryAfter: null, body: null, durationMs: elapsed(), error });
  let url: URL;
  try {
    url = await opts.urlGuard.check(webhook.url);
  } catch (err) {
    return noAnswer(err instanceof UnsafeUrlError ? `refused by the SSRF guard: ${err.message}` : String(err));
  }
  const body = Buffer.from(webhook.body, 'utf8');
  const signal = AbortSignal.timeout(opts.timeoutMs);
  try {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, {
        method: 'POST',
        headers: { ...webhookHeaders(webhook), 'content-length': String(body.length) },
        lookup: opts.urlGuard.lookup,
        signal,
        // One request per attempt: a kept-alive socket would skip the lookup (and its check) next time.
        agent: false,
      }, resolve);
      req.once('error', reject);
      req.end(body);
    });
    const head = await readHead(res, opts.bodyBytes, signal);
    const retryAfter = res.headers['retry-after'];
    return { status: res.statusCode ?? null, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, body: head, durationMs: elapsed(), error: null };
  } catch (err) {
    if (signal.aborted) return noAnswer(`no answer within ${opts.timeoutMs / 1000} s`);
    if (err instanceof UnsafeUrlError) return noAnswer(`refused by the SSRF guard: ${err.message}`);
    const code = (err as NodeJS.ErrnoException).code;
    return noAnswer(code ? `${code}: ${(err as Error).message}` : String((err as Error).message ?? err));
  }
}

/** The first `max` bytes of the body; the rest is not waited for (the socket is dropped). */
function readHead(res: IncomingMessage, max: number, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      res.removeAllListeners('data');
      res.destroy();
      resolve(Buffer.concat(chunks, size).subarray(0, max).toString('utf8'));
    };
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) done();
    });
    res.once('end', done);
    res.once('error', (err) => (size > 0 ? done() : reject(err)));
    signal.addEventListener('abort', () => done(), { once: true });
  });
}
