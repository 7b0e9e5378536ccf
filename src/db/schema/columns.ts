import { bigserial, integer, serial, text, timestamp } from 'drizzle-orm/pg-core';

// Column builders every area's tables share: one place that says how a kind of column is read.

/** A `timestamptz` column, read as a Date. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** An amount of money in minor units (D11: cents): `integer NOT NULL`. */
export const amount = (name: string) => integer(name).notNull();

/** The `id serial PRIMARY KEY` of a table. */
export const serialId = () => serial('id').primaryKey();

/** The `id bigserial PRIMARY KEY` of a table, read as a number. */
export const bigserialId = () => bigserial('id', { mode: 'number' }).primaryKey();

/** When the row was made: `created_at timestamptz NOT NULL` (add `.defaultNow()` where the table defaults it). */
export const createdAt = () => ts('created_at').notNull();

/** When the row was last changed: `updated_at timestamptz NOT NULL` (add `.defaultNow()` where the table defaults it). */
export const updatedAt = () => ts('updated_at').notNull();

/** When the row was made and last changed: `created_at` and `updated_at`, both `timestamptz NOT NULL DEFAULT now()`. */
export const timestamps = () => ({
  createdAt: createdAt().defaultNow(),
  updatedAt: updatedAt().defaultNow(),
});

/** What every organiser's own object starts with: its `id serial PRIMARY KEY` and `organiser_id integer NOT NULL` (what ofOrganiser scopes by). */
export const organiserOwned = () => ({
  id: serialId(),
  organiserId: integer('organiser_id').notNull(),
});

/** A row's state: `status text NOT NULL DEFAULT '<initial>'`, read as one of the states `S`. */
export const status = <S extends string>(initial: NoInfer<S>) => text('status').$type<S>().notNull().default(initial);
