// The email client through the official postmark package, against the Postmark simulator over real HTTP.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmailSimulator, type EmailSimulator } from '../../sandbox/email/index.js';
import { IntegrationError, isIntegrationError } from '../errors.js';
import { createEmailClient, postmarkErrorCode, type EmailClient } from './index.js';

let sim: EmailSimulator;
let apiUrl: string;
let email: EmailClient;

const TOKEN = 'sandbox-server-token';
const message = { from: 'shop@merchant.test', to: 'jane@customer.test', subject: 'Your order', html: '<p>Thanks!</p>', text: 'Thanks!' };

async function failure(promise: Promise<unknown>): Promise<IntegrationError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof IntegrationError)) throw new Error(`expected an IntegrationError, got ${String(err)}`);
  return err;
}

async function addFault(rule: Record<string, unknown>) {
  const res = await fetch(`${apiUrl}/_control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  sim = createEmailSimulator();
  await sim.app.listen({ port: 0, host: '127.0.0.1' });
  apiUrl = `http://127.0.0.1:${(sim.app.server.address() as AddressInfo).port}`;
  email = createEmailClient({ serverToken: TOKEN, apiUrl, timeoutMs: 2_000 });
});
afterAll(() => sim.app.close());
beforeEach(() => sim.reset());

describe('given a valid server token', () => {
  it('when a sent message is searched by recipient and metadata, then the message search finds it and nothing else', async () => {
    const first = await email.send({ ...message, tag: 'order_confirmation', metadata: { email_key: 'k1', token: 't1' } });
    await email.send({ ...message, tag: 'order_confirmation', metadata: { email_key: 'k2', token: 't1' } });
    await email.send({ ...message, to: 'other@customer.test', metadata: { email_key: 'k3' } });
    expect(await email.findSent({ recipient: 'jane@customer.test', metadata: { email_key: 'k1' } })).toBe(first.messageId);
    expect(await email.findSent({ recipient: 'jane@customer.test', metadata: { email_key: 'k3' } })).toBeNull();
    expect(await email.findSent({ recipient: 'jane@customer.test', tag: 'welcome', metadata: { email_key: 'k1' } })).toBeNull();
    const unauthenticated = await fetch(`${apiUrl}/messages/outbound?count=10&offset=0`, { headers: { accept: 'application/json' } });
    expect(unauthenticated.status).toBe(401);
  });

  it('when a message is sent, then it lands in the mailbox with its bodies, tag and metadata', async () => {
    const sent = await email.send({ ...message, tag: 'order-confirmed', metadata: { orderId: 'ord_1' }, replyTo: 'help@merchant.test' });
    expect(sent.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.to).toBe('jane@customer.test');
    expect(Number.isNaN(Date.parse(sent.submittedAt))).toBe(false);

    const res = await fetch(`${apiUrl}/_control/messages?to=JANE@customer.test&metadataKey=orderId&metadataValue=ord_1`);
    const { messages } = (await res.json()) as { messages: Array<Record<string, unknown>> };
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      MessageID: sent.messageId,
      From: 'shop@merchant.test',
      Subject: 'Your order',
      HtmlBody: '<p>Thanks!</p>',
      TextBody: 'Thanks!',
      Tag: 'order-confirmed',
      ReplyTo: 'help@merchant.test',
      MessageStream: 'outbound',
      Metadata: { orderId: 'ord_1' },
    });
  });

  it('when a template created through the API is used, then the message is rendered from its model', async () => {
    const { templateId } = await email.ensureTemplate({
      alias: 'order-confirmed',
      name: 'Order confirmed',
      subject: 'Order {{order.number}} confirmed',
      html: '<h1>Hi {{name}}</h1><ul>{{#items}}<li>{{title}} × {{qty}}</li>{{/items}}</ul>',
      text: 'Hi {{name}}',
    });
    // A second ensure updates the same template rather than creating another one.
    const again = await email.ensureTemplate({ alias: 'order-confirmed', name: 'Order confirmed', subject: 'Order {{order.number}} is confirmed', html: '<h1>Hi {{name}}</h1><ul>{{#items}}<li>{{title}} × {{qty}}</li>{{/items}}</ul>', text: 'Hi {{name}}' });
    expect(again.templateId).toBe(templateId);

    const sent = await email.sendWithTemplate({
      from: 'shop@merchant.test',
      to: 'jane@customer.test',
      template: 'order-confirmed',
      model: { name: '<Jane>', order: { number: '1001' }, items: [{ title: 'Mug', qty: 2 }, { title: 'Tea', qty: 1 }] },
      tag: 'order-confirmed',
    });
    const [stored] = sim.messages({ to: 'jane@customer.test' });
    expect(stored?.MessageID).toBe(sent.messageId);
    expect(stored?.Subject).toBe('Order 1001 is confirmed');
    expect(stored?.HtmlBody).toBe('<h1>Hi &lt;Jane&gt;</h1><ul><li>Mug × 2</li><li>Tea × 1</li></ul>');
    expect(stored?.TextBody).toBe('Hi &lt;Jane&gt;');
    expect(stored?.TemplateId).toBe(templateId);

    const byId = await email.sendWithTemplate({ from: 'shop@merchant.test', to: 'jane@customer.test', template: templateId, model: { name: 'J', order: { number: '2' }, items: [] } });
    expect(byId.messageId).toBeTruthy();
  });

  it('when a batch holds one bad recipient, then the others are sent and that one carries its own rejection', async () => {
    const results = await email.sendBatch([message, { ...message, to: 'not-an-email' }, { ...message, to: ['a@customer.test', 'b@customer.test'] }]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    const bad = results[1];
    if (bad?.ok !== false) throw new Error('expected the second message to fail');
    expect(bad.error.kind).toBe('rejected');
    expect(bad.error.retryable).toBe(false);
    expect(postmarkErrorCode(bad.error)).toBe(300);
    expect(sim.messages()).toHaveLength(2);
    expect(sim.messages({ to: 'b@customer.test' })).toHaveLength(1);
  });

  it('when the mailbox page is opened, then it lists the message and its page holds the escaped HTML in a sandboxed iframe', async () => {
    const sent = await email.send({ ...message, subject: 'Receipt & "thanks"', html: '<p class="x">Hello <b>Jane</b></p>', tag: 'receipt' });
    const list = await (await fetch(`${apiUrl}/`)).text();
    expect(list).toContain(`/messages/${sent.messageId}`);
    expect(list).toContain('Receipt &amp; &quot;thanks&quot;');
    expect(list).toContain('receipt');

    const page = await fetch(`${apiUrl}/messages/${sent.messageId}`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('<iframe sandbox srcdoc="&lt;p class=&quot;x&quot;&gt;Hello &lt;b&gt;Jane&lt;/b&gt;&lt;/p&gt;"');
    expect(html).toContain('<pre>Thanks!</pre>');
  });
});

describe('given failures, each maps to one IntegrationError kind', () => {
  it('when the server token is unknown, then it is unauthorized', async () => {
    const bad = createEmailClient({ serverToken: 'wrong-token', apiUrl });
    const err = await failure(bad.send(message));
    expect(err).toMatchObject({ system: 'email', kind: 'unauthorized', status: 401, retryable: false });
    expect(postmarkErrorCode(err)).toBe(10);
  });

  it('when the recipient is invalid, then it is rejected with ErrorCode 300', async () => {
    const err = await failure(email.send({ ...message, to: 'not-an-email' }));
    expect(err).toMatchObject({ kind: 'rejected', status: 422, retryable: false });
    expect(postmarkErrorCode(err)).toBe(300);
    expect(err.message).toContain("Illegal email address 'not-an-email'");
  });

  it('when the recipient is inactive, then it is rejected with ErrorCode 406 and nothing is sent', async () => {
    const err = await failure(email.send({ ...message, to: 'gone@bounce.test' }));
    expect(err).toMatchObject({ kind: 'rejected', status: 422 });
    expect(postmarkErrorCode(err)).toBe(406);
    expect(err.cause).toBeInstanceOf(Error);
    expect((err.cause as { recipients?: string[] }).recipients).toEqual(['gone@bounce.test']);
    expect(sim.messages()).toHaveLength(0);
  });

  it('when the template does not exist, then it is rejected with ErrorCode 1101', async () => {
    const err = await failure(email.sendWithTemplate({ from: 'shop@merchant.test', to: 'jane@customer.test', template: 'no-such-template', model: {} }));
    expect(err.kind).toBe('rejected');
    expect(postmarkErrorCode(err)).toBe(1101);
  });

  it('when the API answers 500, then it is unavailable and retryable', async () => {
    await addFault({ mode: 'error', status: 500, match: '/email' });
    const err = await failure(email.send(message));
    expect(err).toMatchObject({ kind: 'unavailable', status: 500, retryable: true });
  });

  it('when the API answers 429, then it is rate_limited with its Retry-After', async () => {
    await addFault({ mode: 'error', status: 429, match: '/email' });
    const err = await failure(email.send(message));
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryable: true, retryAfterMs: 1000 });
  });

  it('when the API answers too slowly, then it is a timeout', async () => {
    await addFault({ mode: 'slow', delayMs: 1_000, match: '/email' });
    const quick = createEmailClient({ serverToken: TOKEN, apiUrl, timeoutMs: 150 });
    const err = await failure(quick.send(message));
    expect(err).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('when the API never answers, then it is a timeout', async () => {
    await addFault({ mode: 'timeout', match: '/email' });
    const quick = createEmailClient({ serverToken: TOKEN, apiUrl, timeoutMs: 150 });
    expect((await failure(quick.send(message))).kind).toBe('timeout');
  });

  it('when nothing listens at the URL, then it is unavailable', async () => {
    const probe = createEmailSimulator();
    await probe.app.listen({ port: 0, host: '127.0.0.1' });
    const closedUrl = `http://127.0.0.1:${(probe.app.server.address() as AddressInfo).port}`;
    await probe.app.close();
    const err = await failure(createEmailClient({ serverToken: TOKEN, apiUrl: closedUrl }).send(message));
    expect(err).toMatchObject({ kind: 'unavailable', retryable: true });
  });
});

describe('given two injected 503s', () => {
  it('when the caller retries retryable failures, then the third attempt sends exactly one message', async () => {
    await addFault({ mode: 'error', status: 503, count: 2, match: '/email' });
    const kinds: string[] = [];
    let sent;
    for (let attempt = 1; !sent && attempt <= 5; attempt++) {
      try {
        sent = await email.send(message);
      } catch (err) {
        if (!isIntegrationError(err) || !err.retryable) throw err;
        kinds.push(err.kind);
      }
    }
    expect(kinds).toEqual(['unavailable', 'unavailable']);
    expect(sent?.messageId).toBeTruthy();
    expect(sim.messages()).toHaveLength(1);
  });
});
