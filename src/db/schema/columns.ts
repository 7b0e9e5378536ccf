import { bigserial, serial, timestamp } from 'drizzle-orm/pg-core';

// Column builders every area's tables share: one place that says how a kind of column is read.

/** A `timestamptz` column, read as a Date. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The `id serial PRIMARY KEY` of a table. */
export const serialId = () => serial('id').primaryKey();

/** The `id bigserial PRIMARY KEY` of a table, read as a number. */
export const bigserialId = () => bigserial('id', { mode: 'number' }).primaryKey();
