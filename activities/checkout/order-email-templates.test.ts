// The order emails as the shopper and the merchant read them: the store's order number, countries named in the
// shopper's language, and nothing internal where a shopper reads (no processor payment or checkout ids, no token).
import { describe, expect, it } from 'vitest';
import { renderOrderEmail, type OrderEmailData } from './order-email-templates.js';
import type { OrderEmailKind } from '../../model/checkout/order-emails.js';

const TOKEN = `cs_${'T'.repeat(32)}`;

function data(over: Partial<OrderEmailData> = {}): OrderEmailData {
  return {
    shop: { name: 'Alpha Store', logoUrl: null, primaryColor: '#0b6e4f' },
    reference: '#1001',
    storeOrderId: '6100000000826',
    storeLabel: 'Shopify',
    token: TOKEN,
    customer: { email: 'jane@customer.test', name: 'Jane Doe', addressLines: ['Hauptstr. 1', '10115 Berlin'], country: 'DE' },
    locale: 'de-DE',
    lines: [{ title: 'Linen Tote Bag', variantTitle: 'Natural', quantity: 2, amount: '€49.80' }],
    shipping: { name: 'Standard', amount: '€4.90' },
    subtotal: '€49.80',
    discount: { code: 'WELCOME10', amount: '€4.98' },
    total: '€49.72',
    payment: { method: 'card', reference: 'ch_8Hs0D2kWqPv91Lx' },
    ...over,
  };
}

const SHOPPER_KINDS: OrderEmailKind[] = ['order_confirmation', 'refund_confirmation', 'upsell_confirmation'];
const MERCHANT_KINDS: OrderEmailKind[] = ['merchant_order_notification', 'store_order_problem'];
const everything = (kind: OrderEmailKind, d: OrderEmailData) => {
  const e = renderOrderEmail(kind, d);
  return `${e.subject}\n${e.text}\n${e.html}`;
};

describe('what the shopper reads', () => {
  it('given a paid order / every shopper email names it by the store\'s number and carries no processor id and no session token', () => {
    for (const kind of SHOPPER_KINDS) {
      for (const reference of ['ch_8Hs0D2kWqPv91Lx', 'pay_2mQe81x0aBcD']) {
        const all = everything(kind, data({ payment: { method: 'card', reference } }));
        expect(all, kind).not.toContain(reference);
        expect(all, kind).not.toMatch(/\b(ch|pay|cs)_[A-Za-z0-9]/);
        expect(all, kind).toContain('#1001');
      }
    }
  });

  it('given a refund / the refund email says the order number and the amount, not the processor\'s payment', () => {
    const e = renderOrderEmail('refund_confirmation', data({ locale: 'en-GB' }));
    expect(e.subject).toBe('Refund of €49.72 for order #1001 – Alpha Store');
    expect(e.text).toContain('€49.72 goes back to the card you paid with.');
    expect(e.text).not.toContain('payment ch_');
  });

  it('given a German shopper / the address names the country in German; an English one or an unknown language: in English', () => {
    const de = renderOrderEmail('order_confirmation', data());
    expect(de.text).toContain('Lieferung an:\nJane Doe\nHauptstr. 1\n10115 Berlin\nDeutschland\n');
    expect(de.html).toContain('10115 Berlin<br>Deutschland');
    expect(de.text).not.toMatch(/\nDE\n/);
    expect(renderOrderEmail('order_confirmation', data({ locale: 'en-GB' })).text).toContain('10115 Berlin\nGermany\n');
    expect(renderOrderEmail('order_confirmation', data({ locale: null })).text).toContain('10115 Berlin\nGermany\n');
    expect(renderOrderEmail('order_confirmation', data({ locale: 'fr-FR', customer: { ...data().customer, country: 'CH' } })).text).toContain('\nSuisse\n');
  });
});

describe('a billing address apart from the shipping address', () => {
  const billing = { name: 'Jane Doe', addressLines: ['Stephansplatz 1', '1010 Wien'], country: 'AT' };
  it('given one / the shopper reads it under its own heading in their language, the merchant in English; without one, no billing block', () => {
    const de = renderOrderEmail('order_confirmation', data({ billing }));
    expect(de.text).toContain('Lieferung an:\nJane Doe\nHauptstr. 1\n10115 Berlin\nDeutschland\n\nRechnungsadresse:\nJane Doe\nStephansplatz 1\n1010 Wien\nÖsterreich\n');
    expect(de.html).toContain('Rechnungsadresse</h2>');
    expect(renderOrderEmail('merchant_order_notification', data({ billing })).text).toContain('Billing address:\nJane Doe\nStephansplatz 1\n1010 Wien\nÖsterreich');
    for (const kind of [...SHOPPER_KINDS, ...MERCHANT_KINDS]) {
      expect(everything(kind, data())).not.toMatch(/Rechnungsadresse|Billing address/);
    }
  });
});

describe('the shopper\'s language', () => {
  it('given a German shopper / the confirmation, the refund and the accepted offer are in German, with the shop\'s values filled in', () => {
    const order = renderOrderEmail('order_confirmation', data({ total: '49,72 €' }));
    expect(order.subject).toBe('Bestellung #1001 bestätigt – Alpha Store');
    expect(order.text).toContain('Vielen Dank für Ihre Bestellung, Jane Doe! Bestellung #1001 ist bestätigt und Alpha Store bereitet sie vor.');
    expect(order.text).toContain('Wir haben Ihre Zahlung über 49,72 € erhalten.');
    expect(order.text).toContain('Rabatt (WELCOME10): −€4.98');
    expect(order.text).toContain('Gesamt: 49,72 €');
    expect(order.html).toContain('<h1 style="font-size:20px;margin:20px 0 12px">Bestellung #1001 bestätigt</h1>');
    const partial = renderOrderEmail('refund_confirmation', data({ refund: { amount: '10,00 €', full: false, remaining: '39,72 €', reason: 'Beschädigt' } }));
    expect(partial.subject).toBe('Teilerstattung von 10,00 € für Bestellung #1001 – Alpha Store');
    expect(partial.text).toContain('Der Rest Ihrer Bestellung (39,72 €) bleibt bezahlt.');
    expect(partial.text).toContain('Grund: Beschädigt');
    expect(renderOrderEmail('upsell_confirmation', data()).subject).toBe('Zu Ihrer Bestellung hinzugefügt: Linen Tote Bag (Natural) – Alpha Store');
    // Mail clients and screen readers are told the language: the shopper's, English for the merchant.
    for (const kind of SHOPPER_KINDS) expect(renderOrderEmail(kind, data()).html, kind).toContain('<html lang="de">');
    for (const kind of MERCHANT_KINDS) expect(renderOrderEmail(kind, data()).html, kind).toContain('<html lang="en">');
  });

  it.each([
    ['fr-CH', 'Commande #1001 confirmée – Alpha Store'],
    ['es', 'Pedido #1001 confirmado – Alpha Store'],
    ['it-IT', 'Ordine #1001 confermato – Alpha Store'],
    ['nl-BE', 'Bestelling #1001 bevestigd – Alpha Store'],
    ['pt-BR', 'Order #1001 confirmed – Alpha Store'],
  ])('given a shopper whose language is %s / the confirmation\'s subject is %s', (locale, subject) => {
    expect(renderOrderEmail('order_confirmation', data({ locale })).subject).toBe(subject);
  });

  it('given a German shopper / what the merchant reads stays English', () => {
    const e = renderOrderEmail('merchant_order_notification', data());
    expect(e.subject).toBe('New order #1001: €49.72 from Jane Doe');
    expect(e.text).toContain('Subtotal: €49.80');
  });
});

describe('what the merchant reads', () => {
  it('given a new order / the notification names it by the store\'s number and the customer by name, with the country named', () => {
    const e = renderOrderEmail('merchant_order_notification', data());
    expect(e.subject).toBe('New order #1001: €49.72 from Jane Doe');
    expect(e.text).toContain('Order in your store (Shopify): #1001, id 6100000000826');
    expect(e.text).toContain('Ship to:\nJane Doe\nHauptstr. 1\n10115 Berlin\nDeutschland');
  });

  it('given the store refused the order / the alert still reaches the merchant with the customer and the address to create it by hand', () => {
    for (const kind of MERCHANT_KINDS) expect(everything(kind, data({ reference: 'CS-1A2B3C4D', storeOrderId: null, problem: 'out of stock' })), kind).toContain('Jane Doe');
  });
});
