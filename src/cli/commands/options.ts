import { Type } from 'typebox';

// Option declarations that several commands share: one wording, one rule.

/** Machine-readable output on stdout. */
export const JSON_OPTION = { type: 'boolean', help: 'print JSON instead of a table' } as const;

/** A database id: a whole number from 1 (the largest a PostgreSQL integer holds). */
const ID = {
  schema: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
  problem: 'must be a whole number >= 1',
} as const;

/** A required option that names a record by its database id (ID's rule). */
export const idOption = (help: string, placeholder = '<id>') => ({ type: 'string', required: true, placeholder, help, ...ID }) as const;
