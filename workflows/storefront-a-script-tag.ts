import { proxyActivities } from '@temporalio/workflow';
import type { StorefrontAActivities } from '../activities/storefront-a.js';
import { toStorefrontAFailure, type ScriptTagStatus, RECORD_OPTIONS, STORE_CALL_OPTIONS } from './storefront-a.messages.js';

// A merchant waits on these in the dashboard: a few quick attempts, then a clear error.
const store = proxyActivities<StorefrontAActivities>(STORE_CALL_OPTIONS);
const { recordStorefrontAScriptTag } = proxyActivities<StorefrontAActivities>(RECORD_OPTIONS);

/** Puts our script tag in the merchant's shop when it is missing (manual reinstall, setup verification). */
export async function ensureStorefrontAScriptTagWorkflow(merchantId: string): Promise<ScriptTagStatus> {
  try {
    const tag = await store.ensureStorefrontAScriptTag({ merchantId });
    const { checkedAt } = await recordStorefrontAScriptTag({ merchantId, scriptTagId: tag.scriptTagId });
    return { installed: true, scriptTagId: tag.scriptTagId, src: tag.src, checkedAt };
  } catch (err) {
    throw toStorefrontAFailure(err);
  }
}

/** Looks at the merchant's shop, live, for our script tag, and records what it saw. */
export async function checkStorefrontAScriptTagWorkflow(merchantId: string): Promise<ScriptTagStatus> {
  try {
    const found = await store.checkStorefrontAScriptTag({ merchantId });
    const { checkedAt } = await recordStorefrontAScriptTag({ merchantId, scriptTagId: found.scriptTagId });
    return { ...found, checkedAt };
  } catch (err) {
    throw toStorefrontAFailure(err);
  }
}

/** Takes our script tag out of the shop when the merchant disconnects it; best effort, never blocks the disconnect. */
export async function removeStorefrontAScriptTagWorkflow(merchantId: string): Promise<{ removed: number; error: string | null }> {
  try {
    return { ...(await store.removeStorefrontAScriptTags({ merchantId })), error: null };
  } catch (err) {
    const failure = toStorefrontAFailure(err);
    return { removed: 0, error: failure instanceof Error ? failure.message : 'the store could not be reached' };
  }
}
