// The pixels' code (pixels.ts: each platform's tag and event names, 1.5 KB gzip, an entry of the build) is fetched only
// for a merchant who configured a pixel, by the URL the page route gives (`script`); every other checkout page never
// loads it. Events fired before it arrives wait in order and are sent once it is there (the platforms' own tags load
// after the page anyway, so nothing is sent later than before).
import type { PixelEventData, PixelEventName, Pixels } from './pixels.js';
import type { Pixel } from './types.js';

type PixelsModule = { createPixels: (configs: readonly Pixel[]) => Pixels };

export function lazyPixels(configs: readonly Pixel[], script: string | undefined): Pixels {
  if (!configs.length || !script) return { fire: () => undefined };
  const waiting: Array<[PixelEventName, PixelEventData]> = [];
  let ready: Pixels | null = null;
  (import(/* @vite-ignore */ script) as Promise<PixelsModule>).then(
    ({ createPixels }) => {
      ready = createPixels(configs);
      for (const [event, data] of waiting.splice(0)) ready.fire(event, data);
    },
    // The pixels' code could not be fetched: tracking is lost for this visit, the checkout is not.
    () => undefined,
  );
  return { fire: (event, data) => (ready ? ready.fire(event, data) : void waiting.push([event, data])) };
}
