/** The migrated database every test database is copied from (CREATE DATABASE ... TEMPLATE). */
export const TEMPLATE_DB = 'checkout_template';
