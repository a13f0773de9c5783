// Debian's Chromium (PLATFORM.md): where it is and the flags these machines need, for the browser tests
// (test/browser/chromium.ts launches it with these) and the Lighthouse benchmark (scripts/bench/web.ts).

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The flags these machines need (PLATFORM.md): no sandbox as root, no GPU, nothing phoning home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
