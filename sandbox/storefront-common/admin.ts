// The merchant's order list in a store's back office, with "Mark as paid" for orders awaiting payment
// (cash on delivery): the same page in both stores, fed with each platform's own words.
import { html, page, type Raw } from './html.js';

export interface AdminOrderRow {
  number: string;
  createdAt: string;
  email: string;
  total: string;
  payment: string;
  status: string;
  paid: boolean;
  /** Present for an order that can be marked paid: the form's action. */
  markPaidAction?: string;
  /** Present for a paid order with money left to refund: the refund form's action (amount, reason, restock). */
  refundAction?: string;
  sessionToken: string | null;
}

export function renderOrdersPage(opts: { storeName: string; header: Raw; rows: AdminOrderRow[] }): string {
  const rows = opts.rows.map(
    (o) => html`<tr data-order-number="${o.number}">
      <td>${o.number}</td><td class="muted">${o.createdAt.slice(0, 16).replace('T', ' ')}</td><td>${o.email}</td>
      <td>${o.total}</td><td>${o.payment}</td>
      <td><span class="badge ${o.paid ? 'paid' : 'pending'}">${o.status}</span></td>
      <td class="muted">${o.sessionToken ?? ''}</td>
      <td>${o.markPaidAction ? html`<form method="post" action="${o.markPaidAction}"><button type="submit" data-mark-paid>Mark as paid</button></form>` : ''}
        ${o.refundAction ? html`<form method="post" action="${o.refundAction}" class="refund"><input name="amount" inputmode="decimal" placeholder="Amount" required size="6"> <input name="reason" placeholder="Reason" size="10"> <label><input type="checkbox" name="restock" value="1"> Restock</label> <button type="submit" data-refund>Refund</button></form>` : ''}</td>
    </tr>`,
  );
  return page({
    title: `Orders · ${opts.storeName}`,
    header: opts.header,
    body: html`<h1>Orders</h1>
      ${opts.rows.length === 0 ? html`<p class="muted">No orders yet.</p>` : html`<table>
        <thead><tr><th>Order</th><th>Date</th><th>Customer</th><th>Total</th><th>Payment</th><th>Status</th><th>Checkout session</th><th></th></tr></thead>
        <tbody>${rows}</tbody></table>`}`,
  });
}
