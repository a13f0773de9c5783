// `npm run provision`, and the `pretest` step of `npm test`: everything the tests need on this machine, so a fresh
// clone needs only `npm install && npm test`.
//   1. Debian packages (scripts/lib/system-packages.ts): installed when missing if we run as root with apt-get;
//      otherwise the one command to run is printed and we stop (exit 1) before any test starts.
//   2. Pinned tools, built or fetched once into ~/.cache/checkout-service (CHECKOUT_CACHE_DIR): the Temporal CLI,
//      the time-skipping test server, the real Temporal server with its SQL tool (the cluster drill), Caddy (the TLS edge)
//      and Pebble with its challenge test server (test/edge/pebble.test.ts), Schemathesis
//      (the OpenAPI fuzzer), Whop's Python SDK (the Domains API's contract test), Shopify's Admin and Storefront GraphQL schemas (scripts/lib/shopify-schemas.ts), and the real WordPress, WooCommerce and linter tarballs of ../shared/real-platforms
//      (REAL_PLATFORMS_DIR) unpacked and checked against their SHA256SUMS.
// With everything cached it takes about a second. Two runs at once are safe: every build goes to a temporary folder
// renamed into place when complete.
import { execFileSync } from 'node:child_process';
import { ensureTemporalCli, ensureTemporalServer, ensureTestServer, ProvisionError } from './lib/temporal-binaries.js';
import { ensureSchemathesis } from './lib/schemathesis.js';
import { ensureWhopPythonSdk } from './lib/whop-python-sdk.js';
import { ensureCaddy, ensurePebble } from './lib/tls-binaries.js';
import { ensureShopifySchemas } from './lib/shopify-schemas.js';
import { unpackedPlatform } from './lib/real-platforms.js';
import { installCommand, missingPackages } from './lib/system-packages.js';

const t0 = Date.now();
const stamp = (line: string) => console.log(`[provision +${((Date.now() - t0) / 1000).toFixed(0)}s] ${line}`);

function systemPackages(): void {
  const missing = missingPackages();
  if (missing.length === 0) return;
  const isRoot = process.getuid?.() === 0;
  let hasApt = false;
  try {
    execFileSync('apt-get', ['--version'], { stdio: 'ignore' });
    hasApt = true;
  } catch {
    // not a Debian-like machine
  }
  if (!isRoot || !hasApt) {
    throw new ProvisionError(
      `The tests need these Debian packages, missing here: ${missing.join(' ')}\n` +
        `Install them (as root), then run npm test again:\n\n  ${installCommand(missing)}\n`,
    );
  }
  stamp(`installing Debian packages: ${missing.join(' ')}`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  const still = missingPackages();
  if (still.length) throw new ProvisionError(`Still missing after apt-get install: ${still.join(' ')}`);
}

try {
  systemPackages();
  // The real platforms unpack (xz, I/O) while the Temporal tools are found or built (CPU), one after the other
  // (the server build alone peaks near 2 GB).
  const platforms = Promise.all([unpackedPlatform('wordpress'), unpackedPlatform('woocommerce'), unpackedPlatform('linter')]);
  const cli = await ensureTemporalCli(stamp);
  const testServer = await ensureTestServer(stamp);
  const schemathesis = await ensureSchemathesis(stamp);
  const whopPython = await ensureWhopPythonSdk(stamp);
  const shopifySchemas = await ensureShopifySchemas(stamp);
  const server = await ensureTemporalServer(stamp);
  const caddy = await ensureCaddy(stamp);
  const pebble = await ensurePebble(stamp);
  const [wordpress, woocommerce, linter] = await platforms;
  if (process.env.npm_lifecycle_event !== 'pretest' || Date.now() - t0 > 5_000) {
    console.log(`temporal CLI:         ${cli}`);
    console.log(`time-skipping server: ${testServer}`);
    console.log(`schemathesis ${schemathesis.version}: ${schemathesis.python} -m schemathesis.cli`);
    console.log(`whop-sdk ${whopPython.version} (Python): ${whopPython.python}`);
    console.log(`temporal server:      ${server.server} (${server.version}; sql tool ${server.sqlTool})`);
    console.log(`shopify schemas:      ${shopifySchemas}`);
    console.log(`caddy (TLS edge):     ${caddy}`);
    console.log(`pebble (test ACME):   ${pebble.pebble}, ${pebble.challtestsrv}`);
    console.log(`real platforms:       ${wordpress}, ${woocommerce}, ${linter}`);
  }
  console.log(`provisioned in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
} catch (err) {
  if (err instanceof ProvisionError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
