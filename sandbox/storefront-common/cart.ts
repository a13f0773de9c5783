// Server-side shopping carts of a demo store, keyed by a cart token kept in a cookie.
import { randomHex } from './web.js';

export interface CartLine {
  productId: number;
  variantId: number;
  quantity: number;
}

export const MAX_LINE_QUANTITY = 99;

export class CartStore {
  private carts = new Map<string, CartLine[]>();

  create(): string {
    const token = randomHex(16);
    this.carts.set(token, []);
    return token;
  }

  get(token: string | undefined): CartLine[] | undefined {
    return token === undefined ? undefined : this.carts.get(token);
  }

  /** Adds to the line of that variant (or a new line); quantities are capped like a real store. */
  add(token: string, line: CartLine): void {
    const lines = this.carts.get(token) ?? [];
    const existing = lines.find((l) => l.variantId === line.variantId);
    if (existing) existing.quantity = Math.min(MAX_LINE_QUANTITY, existing.quantity + line.quantity);
    else lines.push({ ...line, quantity: Math.min(MAX_LINE_QUANTITY, line.quantity) });
    this.carts.set(token, lines);
  }

  /** Sets a line's quantity; 0 removes it. */
  change(token: string, variantId: number, quantity: number): void {
    const lines = (this.carts.get(token) ?? []).filter((l) => l.variantId !== variantId || quantity > 0);
    const line = lines.find((l) => l.variantId === variantId);
    if (line) line.quantity = Math.min(MAX_LINE_QUANTITY, quantity);
    this.carts.set(token, lines);
  }

  /** Removes every line (the cart stays, empty). */
  empty(token: string): void {
    if (this.carts.has(token)) this.carts.set(token, []);
  }

  get size(): number {
    return this.carts.size;
  }
}
