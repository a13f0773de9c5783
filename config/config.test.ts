import { describe, expect, it } from 'vitest';
import { ConfigError, ECB_DAILY_URL, loadConfig, unguardedOrigins } from './index.js';

describe('configuration', () => {
  it('given no variables / it runs locally on embedded defaults with the sandbox on', () => {
    const config = loadConfig({});
    expect(config.env).toBe('development');
    expect(config.api.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.temporal.address).toBeUndefined();
    expect(config.sandbox.enabled).toBe(true);
    expect(config.fx.url).toBe('http://127.0.0.1:4060/stats/eurofxref/eurofxref-daily.xml');
    expect(config.appOrigin).toBe('http://localhost:3000');
  });

  it('given production without its secrets / it refuses to start, naming what is missing', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL, TEMPORAL_ADDRESS, JWT_SECRET, SECRETS_KEY, APP_ORIGIN, PUBLIC_API_URL, PROCESSOR_API_URL, POSTMARK_SERVER_TOKEN/);
  });

  it('given production with everything set / the sandbox is off and rates come from the ECB', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://db/checkout',
      TEMPORAL_ADDRESS: 'temporal:7233',
      JWT_SECRET: 'x'.repeat(40),
      SECRETS_KEY: Buffer.alloc(32).toString('base64'),
      APP_ORIGIN: 'https://app.example.com',
      PUBLIC_API_URL: 'https://api.example.com',
      PROCESSOR_API_URL: 'https://processor.example.com',
      POSTMARK_SERVER_TOKEN: 'pm-token',
    });
    expect(config.sandbox.enabled).toBe(false);
    expect(config.fx.url).toBe(ECB_DAILY_URL);
  });

  it('given LOCAL_STORE_ORIGINS outside production / those loopback stores join the URL guard\'s exemptions; anything but a loopback origin is refused', () => {
    const config = loadConfig({ LOCAL_STORE_ORIGINS: 'http://127.0.0.1:8081, http://localhost:8082/' });
    expect(config.localStoreOrigins).toEqual(['http://127.0.0.1:8081', 'http://localhost:8082']);
    expect(unguardedOrigins(config)).toEqual(expect.arrayContaining(['http://127.0.0.1:8081', 'http://localhost:8082', config.sandbox.urls.storefrontB]));
    expect(loadConfig({}).localStoreOrigins).toEqual([]);
    for (const bad of ['http://shop.example.com', 'http://10.0.0.5:80', 'http://127.0.0.1:8081/shop', 'ftp://127.0.0.1:21']) {
      expect(() => loadConfig({ LOCAL_STORE_ORIGINS: bad }), bad).toThrow(/LOCAL_STORE_ORIGINS/);
    }
  });

  it('given LOCAL_STORE_ORIGINS in production / it refuses to start: production stores are https on public addresses', () => {
    const production = {
      NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/checkout', TEMPORAL_ADDRESS: 'temporal:7233', JWT_SECRET: 'x'.repeat(40), SECRETS_KEY: Buffer.alloc(32).toString('base64'),
      APP_ORIGIN: 'https://app.example.com', PUBLIC_API_URL: 'https://api.example.com', PROCESSOR_API_URL: 'https://processor.example.com', POSTMARK_SERVER_TOKEN: 'pm-token',
    };
    expect(unguardedOrigins(loadConfig(production))).toEqual([]);
    expect(() => loadConfig({ ...production, LOCAL_STORE_ORIGINS: 'http://127.0.0.1:8081' })).toThrow(/LOCAL_STORE_ORIGINS is for development and tests/);
  });

  it('given malformed values / it names each one', () => {
    expect(() => loadConfig({ API_PORT: 'eighty', TRUST_PROXY: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ API_PORT: 'eighty' })).toThrow(/API_PORT/);
  });

  it('given the processor\'s API / the embedded checkout comes from the origin that goes with it, or the one configured; the payment page is embedded unless set to hosted', () => {
    expect(loadConfig({}).processor).toMatchObject({ embedOrigin: 'http://127.0.0.1:4010', paymentPage: 'embedded' });
    expect(loadConfig({ PROCESSOR_API_URL: 'https://api.whop.com/api/v1' }).processor.embedOrigin).toBe('https://whop.com');
    expect(loadConfig({ PROCESSOR_API_URL: 'https://sandbox-api.whop.com/api/v1' }).processor.embedOrigin).toBe('https://sandbox.whop.com');
    expect(loadConfig({ PROCESSOR_EMBED_ORIGIN: 'https://embed.example.com/' }).processor.embedOrigin).toBe('https://embed.example.com');
    expect(() => loadConfig({ PROCESSOR_EMBED_ORIGIN: 'https://embed.example.com/checkout' })).toThrow(/PROCESSOR_EMBED_ORIGIN/);
    expect(loadConfig({}).processor.applePayAssociation).toBeNull();
    expect(() => loadConfig({ APPLE_PAY_DOMAIN_ASSOCIATION_FILE: '/nonexistent/association' })).toThrow(/APPLE_PAY_DOMAIN_ASSOCIATION_FILE/);
    expect(loadConfig({ CHECKOUT_PAYMENT_PAGE: 'hosted' }).processor.paymentPage).toBe('hosted');
    expect(() => loadConfig({ CHECKOUT_PAYMENT_PAGE: 'iframe' })).toThrow(/CHECKOUT_PAYMENT_PAGE/);
  });

  it('given TRUST_PROXY / it is false, true, or the edge\'s addresses, and nothing else', () => {
    expect(loadConfig({}).api.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).api.trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: ' 172.28.0.10 , 10.0.0.0/8,::1' }).api.trustProxy).toBe('172.28.0.10,10.0.0.0/8,::1');
    expect(() => loadConfig({ TRUST_PROXY: 'edge.internal' })).toThrow(ConfigError);
  });

  it('given PUBLIC_HTTPS behind the TLS edge / checkout origins are https on the public port; plain http stays the local default; production refuses false', () => {
    expect(loadConfig({}).publicHttps).toBe(false);
    const edged = loadConfig({ PUBLIC_HTTPS: 'true', API_PORT: '3443' });
    expect(edged.publicHttps).toBe(true);
    expect(edged.appOrigin).toBe('https://localhost:3443');
    expect(loadConfig({ PUBLIC_HTTPS: 'true', API_PORT: '443' }).appOrigin).toBe('https://localhost');
    const production = {
      NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/checkout', TEMPORAL_ADDRESS: 'temporal:7233', JWT_SECRET: 'x'.repeat(40), SECRETS_KEY: Buffer.alloc(32).toString('base64'),
      APP_ORIGIN: 'https://app.example.com', PUBLIC_API_URL: 'https://api.example.com', PROCESSOR_API_URL: 'https://processor.example.com', POSTMARK_SERVER_TOKEN: 'pm-token',
    };
    expect(loadConfig(production).publicHttps).toBe(true);
    expect(() => loadConfig({ ...production, PUBLIC_HTTPS: 'false' })).toThrow(/PUBLIC_HTTPS=false/);
  });
});
