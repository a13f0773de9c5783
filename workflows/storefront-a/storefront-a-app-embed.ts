import { proxyActivities } from '@temporalio/workflow';
import type { StorefrontAActivities } from '../../activities/storefront-a/storefront-a.js';
import { toStorefrontAFailure, type AppEmbedStatus } from './storefront-a.messages.js';
import { PROFILES } from '../activity-profiles.js';

// A merchant waits on these in the dashboard: a few quick attempts, then a clear error.
const store = proxyActivities<StorefrontAActivities>(PROFILES.storefrontACall);
const { recordStorefrontAScriptTag } = proxyActivities<StorefrontAActivities>(PROFILES.setupRecord);

/** Drives interception (install): removes legacy script tags, answers the app embed's status and activation link. */
export async function ensureStorefrontAScriptTagWorkflow(merchantId: string): Promise<AppEmbedStatus> {
  try {
    const status = await store.ensureStorefrontAScriptTag({ merchantId });
    const { checkedAt } = await recordStorefrontAScriptTag({ merchantId, scriptTagId: status.scriptTagId, embedActive: status.installed });
    return { ...status, checkedAt };
  } catch (err) {
    throw toStorefrontAFailure(err);
  }
}

/** Looks at the merchant's shop, live: is our app embed on in the published theme? Records what it saw. */
export async function checkStorefrontAScriptTagWorkflow(merchantId: string): Promise<AppEmbedStatus> {
  try {
    const found = await store.checkStorefrontAScriptTag({ merchantId });
    const { checkedAt } = await recordStorefrontAScriptTag({ merchantId, scriptTagId: found.scriptTagId, embedActive: found.installed });
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
