// The test configuration: the harness's stacks and the benches' run the service with it (test/harness re-exports it).
import { loadConfig, type Config } from '../../../config/index.js';

/** The configuration tests run with: test mode, sandbox on, quiet logs, fixed secrets, no create cache. */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'test-jwt-secret-that-is-long-enough-0123456789',
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    // Tests change store prices, plans and FX rates between creates and expect the next create to see them.
    CHECKOUT_CACHE_SECONDS: '0',
    ...env,
  });
}
