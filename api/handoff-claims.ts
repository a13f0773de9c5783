// Each signed storefront B handoff makes at most one checkout. The signature (HMAC of "<timestamp>.<body>") verifies
// for 5 minutes, so a captured or repeated handoff — a proxy that retries, someone replaying it — would otherwise make
// a session per copy. The body carries the plugin's random `handoffId` (1.2.0+), so the signature is one shopper's
// click: without it, two shoppers with identical carts in the same second would sign alike, and such handoffs are not
// deduplicated (api/cart-sources.ts). Its SHA-256 is claimed with one INSERT … ON CONFLICT DO
// NOTHING (atomic across API replicas: PostgreSQL is the one store they all share) before the session is made, and
// the statement that inserts the session names it on the claim (api/routes/checkout/index.ts). A copy finds the
// claim and is answered 409 HANDOFF_REPLAYED naming that session, which the plugin sends the shopper to; a copy
// arriving while the first is still being made waits for it (briefly).
// A handoff whose create fails gives its claim back, so it can be sent again. Claims are cleared after 15 minutes
// (the signature's window is 5), a bounded batch at most once a minute per process.
import { createHash } from 'node:crypto';
import type { Db } from '../prisma/client.js';

/** How long a copy waits for the first handoff's session before answering without it. */
const WAIT_FOR_FIRST_MS = 4_000;
const POLL_MS = 100;
const KEPT = '15 minutes';
const SWEEP_EVERY_MS = 60_000;
let lastSweep = 0;

export type HandoffHash = Uint8Array<ArrayBuffer>;
export type HandoffClaim = { claimed: true; hash: HandoffHash } | { claimed: false; sessionToken: string | null };

export const handoffHash = (signature: string): HandoffHash => new Uint8Array(createHash('sha256').update(signature).digest());

/** Claims the handoff for this create, or answers the session its first copy made (null: still being made). */
export async function claimHandoff(db: Db, merchantId: string, signature: string): Promise<HandoffClaim> {
  const hash = handoffHash(signature);
  if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
    lastSweep = Date.now();
    await db.$executeRaw`
      DELETE FROM storefront_b_handoffs WHERE signature_hash IN (
        SELECT signature_hash FROM storefront_b_handoffs WHERE created_at < now() - ${KEPT}::interval LIMIT 1000)`.catch(() => undefined);
  }
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const inserted = await db.$executeRaw`
      INSERT INTO storefront_b_handoffs (signature_hash, merchant_id) VALUES (${hash}, ${merchantId}::uuid) ON CONFLICT DO NOTHING`;
    if (inserted === 1) return { claimed: true, hash };
    const first = await db.storefrontBHandoff.findUnique({ where: { signatureHash: hash }, select: { sessionToken: true } });
    // Gone in between: the first create failed and gave it back; this copy may go ahead.
    if (!first) continue;
    if (first.sessionToken !== null || Date.now() >= deadline) return { claimed: false, sessionToken: first.sessionToken };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The create failed before a session was made: the handoff may be sent again. */
export async function releaseHandoff(db: Db, hash: HandoffHash): Promise<void> {
  await db.storefrontBHandoff.deleteMany({ where: { signatureHash: hash, sessionToken: null } });
}
