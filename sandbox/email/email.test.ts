// The Postmark simulator over raw HTTP: the protocol details a client other than ours would rely on.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmailSimulator, type EmailSimulator } from './index.js';

let sim: EmailSimulator;
let base: string;
const TOKEN = 'sandbox-server-token';

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { accept: 'application/json', 'x-postmark-server-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const email = { From: 'Shop <shop@merchant.test>', To: 'jane@customer.test', Subject: 'Hello', TextBody: 'Hi' };

beforeAll(async () => {
  sim = createEmailSimulator({ serverTokens: [TOKEN, 'second-token'] });
  await sim.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(sim.app.server.address() as AddressInfo).port}`;
});
afterAll(() => sim.app.close());
beforeEach(() => sim.reset());

describe('authentication', () => {
  it('given no token, when sending, then 401 with ErrorCode 10', async () => {
    const res = await api('POST', '/email', email, { 'x-postmark-server-token': '' });
    expect(res.status).toBe(401);
    expect(res.body.ErrorCode).toBe(10);
  });

  it('given an unknown token, when listing templates, then 401 with ErrorCode 10', async () => {
    const res = await api('GET', '/templates', undefined, { 'x-postmark-server-token': 'nope' });
    expect(res).toMatchObject({ status: 401, body: { ErrorCode: 10 } });
  });

  it('given any configured token, when sending, then the message is accepted', async () => {
    const res = await api('POST', '/email', email, { 'x-postmark-server-token': 'second-token' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ To: 'jane@customer.test', ErrorCode: 0, Message: 'OK' });
  });
});

describe('validation answers 422 with Postmark error codes', () => {
  it.each([
    ['no recipient', { ...email, To: undefined }, 300, 'Zero recipients specified'],
    ['an illegal recipient', { ...email, To: 'jane@customer.test, bogus' }, 300, "Illegal email address 'bogus'"],
    ['an illegal Cc', { ...email, Cc: 'x@' }, 300, "Error parsing 'Cc'"],
    ['no sender', { ...email, From: '' }, 300, "'From'"],
    ['no subject', { ...email, Subject: ' ' }, 300, 'Subject'],
    ['no body', { ...email, TextBody: undefined }, 300, 'TextBody or HtmlBody'],
    ['only inactive recipients', { ...email, To: 'a@bounce.test', Cc: 'b@BOUNCE.test' }, 406, 'Found inactive addresses: a@bounce.test, b@BOUNCE.test.'],
    ['an unknown message stream', { ...email, MessageStream: 'promo' }, 1235, 'promo'],
    ['the inbound stream', { ...email, MessageStream: 'inbound' }, 1236, 'inbound'],
    ['a non-string metadata value', { ...email, Metadata: { orderId: 42 } }, 403, 'Metadata'],
    ['too long a metadata value', { ...email, Metadata: { orderId: 'x'.repeat(81) } }, 300, 'Metadata'],
    ['malformed JSON', '{"From":', 402, 'invalid JSON'],
  ])('given %s, when sending, then the matching ErrorCode', async (_name, body, code, text) => {
    const res = await api('POST', '/email', body);
    expect(res.status).toBe(422);
    expect(res.body.ErrorCode).toBe(code);
    expect(res.body.Message).toContain(text);
    expect(sim.messages()).toHaveLength(0);
  });

  it('given a form-encoded body, when sending, then ErrorCode 409 (JSON required)', async () => {
    const res = await api('POST', '/email', 'From=a', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res).toMatchObject({ status: 422, body: { ErrorCode: 409 } });
  });

  it('given active and inactive recipients, when sending, then only the active ones receive it', async () => {
    const res = await api('POST', '/email', { ...email, To: 'gone@bounce.test, "Doe, Jane" <Jane@Customer.test>' });
    expect(res.status).toBe(200);
    expect(sim.messages()[0]?.Recipients).toEqual(['jane@customer.test']);
    expect(sim.messages({ to: 'gone@bounce.test' })).toHaveLength(0);
  });
});

describe('templates', () => {
  const template = { Name: 'Receipt', Alias: 'receipt', Subject: 'Receipt {{number}}', HtmlBody: '<p>{{{greeting}}} {{name}}</p>', TextBody: 'Total {{total.amount}}' };

  it('given a created template, when it is fetched by id and by alias and listed, then the same template comes back', async () => {
    const created = await api('POST', '/templates/', template);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ Name: 'Receipt', Alias: 'receipt', Active: true, TemplateType: 'Standard' });
    const id = created.body.TemplateId as number;
    expect((await api('GET', `/templates/${id}`)).body).toMatchObject({ TemplateId: id, Subject: 'Receipt {{number}}', HtmlBody: template.HtmlBody });
    expect((await api('GET', '/templates/RECEIPT')).body.TemplateId).toBe(id);
    expect((await api('GET', '/templates?count=10&offset=0')).body).toMatchObject({ TotalCount: 1, Templates: [{ TemplateId: id, Alias: 'receipt' }] });
  });

  it.each([
    ['no name', { ...template, Name: undefined }, 1120],
    ['no subject', { ...template, Subject: '' }, 1120],
    ['no body', { ...template, HtmlBody: null, TextBody: null }, 1120],
    ['an invalid alias', { ...template, Alias: '1-receipt' }, 1122],
    ['an unclosed section', { ...template, HtmlBody: '{{#items}}<li>' }, 1122],
    ['a layout', { ...template, TemplateType: 'Layout' }, 1122],
  ])('given %s, when creating a template, then ErrorCode %s', async (_name, body, code) => {
    const res = await api('POST', '/templates', body);
    expect(res).toMatchObject({ status: 422, body: { ErrorCode: code } });
  });

  it('given a template, when another takes its alias, then 1122; when edited and deleted, then 1101 afterwards', async () => {
    const { body: created } = await api('POST', '/templates', template);
    expect((await api('POST', '/templates', { ...template, Name: 'Other' })).body.ErrorCode).toBe(1122);
    const edited = await api('PUT', '/templates/receipt', { Subject: 'Your receipt {{number}}' });
    expect(edited.body).toMatchObject({ TemplateId: created.TemplateId, Name: 'Receipt' });
    expect((await api('GET', '/templates/receipt')).body.Subject).toBe('Your receipt {{number}}');
    // As the official client sends it: Content-Type application/json and no body.
    const removed = await api('DELETE', `/templates/${created.TemplateId}`, undefined, { 'content-type': 'application/json' });
    expect(removed).toMatchObject({ status: 200, body: { ErrorCode: 0 } });
    expect(await api('GET', '/templates/receipt')).toMatchObject({ status: 422, body: { ErrorCode: 1101 } });
  });

  it('given a template, when sending withTemplate, then {{var}} is escaped, {{{raw}}} is not and nested names resolve', async () => {
    await api('POST', '/templates', template);
    const res = await api('POST', '/email/withTemplate', {
      From: email.From,
      To: email.To,
      TemplateAlias: 'receipt',
      TemplateModel: { number: 7, greeting: '<b>Hello</b>', name: 'Tom & <Jerry>', total: { amount: '€10.00' } },
    });
    expect(res.body).toMatchObject({ ErrorCode: 0, Message: 'OK' });
    const [m] = sim.messages();
    expect(m).toMatchObject({ Subject: 'Receipt 7', HtmlBody: '<p><b>Hello</b> Tom &amp; &lt;Jerry&gt;</p>', TextBody: 'Total €10.00', TemplateAlias: 'receipt' });
  });

  it('given no template, when sending withTemplate by id, then 422 ErrorCode 1101; without TemplateModel, then 403', async () => {
    expect(await api('POST', '/email/withTemplate', { From: email.From, To: email.To, TemplateId: 99, TemplateModel: {} })).toMatchObject({ status: 422, body: { ErrorCode: 1101 } });
    expect(await api('POST', '/email/withTemplate', { From: email.From, To: email.To, TemplateAlias: 'x' })).toMatchObject({ status: 422, body: { ErrorCode: 403 } });
  });

  it('given templates and a batch with templates, when one names an unknown template, then that entry alone fails', async () => {
    await api('POST', '/templates', template);
    const res = await api('POST', '/email/batchWithTemplates', {
      Messages: [
        { From: email.From, To: email.To, TemplateAlias: 'receipt', TemplateModel: { number: 1 } },
        { From: email.From, To: email.To, TemplateAlias: 'missing', TemplateModel: {} },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r: { ErrorCode: number }) => r.ErrorCode)).toEqual([0, 1101]);
  });
});

describe('batches', () => {
  it('given more than 500 messages, when sending a batch, then ErrorCode 410 and nothing is sent', async () => {
    const res = await api('POST', '/email/batch', Array.from({ length: 501 }, () => email));
    expect(res).toMatchObject({ status: 422, body: { ErrorCode: 410 } });
    expect(sim.messages()).toHaveLength(0);
  });

  it('given a body that is not an array, when sending a batch, then ErrorCode 403', async () => {
    expect((await api('POST', '/email/batch', email)).body.ErrorCode).toBe(403);
  });
});

describe('control API and mailbox', () => {
  it('given messages with tags and metadata, when filtering, then only the matches come back, newest first', async () => {
    await api('POST', '/email', { ...email, Tag: 'welcome', Metadata: { merchant: 'm1' } });
    await api('POST', '/email', { ...email, To: 'bob@customer.test', Tag: 'receipt', Metadata: { merchant: 'm2' } });
    await api('POST', '/email', { ...email, Subject: 'Later', Tag: 'receipt', Metadata: { merchant: 'm1' } });
    const list = async (q: string) => ((await (await fetch(`${base}/_control/messages${q}`)).json()) as { messages: Array<{ Subject: string; To: string }> }).messages;
    expect((await list('')).map((m) => m.Subject)).toEqual(['Later', 'Hello', 'Hello']);
    expect(await list('?tag=receipt&metadataKey=merchant&metadataValue=m1')).toHaveLength(1);
    expect(await list('?metadataValue=m2')).toMatchObject([{ To: 'bob@customer.test' }]);
    expect(await list('?to=jane@customer.test')).toHaveLength(2);

    const one = sim.messages({ tag: 'welcome' })[0];
    expect(((await (await fetch(`${base}/_control/messages/${one?.MessageID}`)).json()) as { Tag: string }).Tag).toBe('welcome');
    expect((await fetch(`${base}/_control/messages/nope`)).status).toBe(404);

    const del = await fetch(`${base}/_control/messages`, { method: 'DELETE' });
    expect(await del.json()).toEqual({ ok: true, deleted: 3 });
    expect(await list('')).toHaveLength(0);
  });

  it('given a message and a template, when reset, then both are gone', async () => {
    await api('POST', '/email', email);
    await api('POST', '/templates', { Name: 'T', Alias: 't', Subject: 's', TextBody: 'b' });
    expect((await fetch(`${base}/_control/reset`, { method: 'POST' })).status).toBe(200);
    expect(sim.messages()).toHaveLength(0);
    expect((await api('GET', '/templates')).body.TotalCount).toBe(0);
  });

  it('given an empty mailbox and an unknown message id, when opening the pages, then they say so', async () => {
    expect(await (await fetch(`${base}/`)).text()).toContain('No messages yet.');
    const res = await fetch(`${base}/messages/<script>`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('&lt;script&gt;');
  });
});
