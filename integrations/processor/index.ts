export * from './client.js';
export * from './schemas.js';
export * from './webhook.js';
