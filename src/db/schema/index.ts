// Every table of the product, one file per area. Each area's SQL lives in src/db/migrations.
export * from './catalogue.js';
export * from './channels.js';
export * from './orders.js';
export * from './payments.js';
export * from './tickets.js';
export * from './admin.js';
export * from './reports.js';
export * from './idempotency.js';
export * from './deployment.js';
