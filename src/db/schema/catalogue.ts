import { pgTable, integer, text, boolean, real, jsonb, primaryKey } from 'drizzle-orm/pg-core';
import { ts, serialId, bigserialId, createdAt, timestamps, organiserOwned, status, amount, updatedAt } from './columns.js';

export const organisers = pgTable('organisers', {
  id: serialId(),
  name: text('name').notNull(),
  createdAt: createdAt().defaultNow(),
  /** Whether a refund gives the fees back too (D58, migration 0141). */
  refundFees: boolean('refund_fees').notNull().default(true),
  /** The box office address: Reply-To of the organiser's buyer e-mails (0175). */
  replyToEmail: text('reply_to_email'),
});

export const venues = pgTable('venues', {
  ...organiserOwned(),
  name: text('name').notNull(),
  address: text('address'),
  city: text('city'),
  createdAt: createdAt().defaultNow(),
});

export const sectors = pgTable('sectors', {
  id: serialId(),
  venueId: integer('venue_id').notNull(),
  name: text('name').notNull(),
  numbered: boolean('numbered').notNull(),
  capacity: integer('capacity').notNull().default(0),
  sortOrder: integer('sort_order').notNull().default(0),
  /** Not in the venue's newest layout version (D64, 0215); kept for the sessions and sales that name it. */
  retired: boolean('retired').notNull().default(false),
});

/** A version of a venue's seat map (D64, 0215): its document exactly as saved, and its focal point. */
export const venueLayouts = pgTable('venue_layouts', {
  id: serialId(),
  venueId: integer('venue_id').notNull(),
  version: integer('version').notNull(),
  document: jsonb('document').$type<Record<string, unknown>>().notNull(),
  focalX: real('focal_x'),
  focalY: real('focal_y'),
  createdAt: createdAt().defaultNow(),
});

export const seats = pgTable('seats', {
  id: serialId(),
  sectorId: integer('sector_id').notNull(),
  row: text('row').notNull(),
  number: text('number').notNull(),
  x: real('x').notNull(),
  y: real('y').notNull(),
  /** The layout version the seat belongs to (D64, 0215). */
  layoutId: integer('layout_id').notNull(),
  category: text('category'),
  wheelchair: boolean('wheelchair').notNull().default(false),
  companion: boolean('companion').notNull().default(false),
  restrictedView: boolean('restricted_view').notNull().default(false),
  /** The priority of the seat's row for best available (D61): higher first. */
  rowPriority: integer('row_priority').notNull().default(0),
});

export const events = pgTable('events', {
  ...organiserOwned(),
  venueId: integer('venue_id').notNull(),
  defaultLang: text('default_lang').notNull().default('es'),
  status: status<'draft' | 'published' | 'archived'>('published'),
  imageUrl: text('image_url'),
  ...timestamps(),
});

export const eventTranslations = pgTable(
  'event_translations',
  {
    eventId: integer('event_id').notNull(),
    lang: text('lang').notNull(),
    name: text('name').notNull(),
    description: text('description'),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.lang] })],
);

export const sessions = pgTable('sessions', {
  id: serialId(),
  eventId: integer('event_id').notNull(),
  venueId: integer('venue_id').notNull(),
  startDatetime: ts('start_datetime').notNull(),
  endDatetime: ts('end_datetime'),
  status: status<'draft' | 'on_sale' | 'closed' | 'cancelled'>('on_sale'),
  /** Seats + zone places one buyer may hold in live carts of the session (D44); null = no session cap. */
  maxTicketsPerBuyer: integer('max_tickets_per_buyer'),
  /** Sales window (D59): cart writes only from sales_start_at (inclusive) to sales_end_at (exclusive); null = open. */
  salesStartAt: ts('sales_start_at'),
  salesEndAt: ts('sales_end_at'),
  /** When the session was cancelled (D74); null otherwise. */
  cancelledAt: ts('cancelled_at'),
  /** The layout version the session uses (D64, 0215); set from the venue's newest by a trigger when absent. */
  layoutId: integer('layout_id'),
  /** The waiting room's settings (D60, migration 0200); null = never had a queue. */
  queue: jsonb('queue').$type<SessionQueueSettings | null>(),
  ...timestamps(),
});

/** A session's waiting-room settings as stored (D60): every field present, defaults filled in. */
export interface SessionQueueSettings {
  enabled: boolean;
  admission_per_minute: number;
  pass_ttl_seconds: number;
  opens_minutes_before: number;
  challenge: 'none' | 'proof_of_work';
}

/** The seed of a session's queue draw and, once drawn, its record (D60, migration 0200). */
export const sessionQueueDraws = pgTable('session_queue_draws', {
  sessionId: integer('session_id').primaryKey(),
  seedSealed: text('seed_sealed').notNull(),
  seedSha256: text('seed_sha256').notNull(),
  drawnAt: ts('drawn_at'),
  drawnCount: integer('drawn_count'),
  createdAt: createdAt(),
});

export const rates = pgTable('rates', {
  id: serialId(),
  sessionId: integer('session_id').notNull(),
  sectorId: integer('sector_id'),
  name: text('name').notNull(),
  names: jsonb('names').$type<Record<string, string>>().notNull().default({}),
  price: amount('price'),
  meta: jsonb('meta').$type<Record<string, unknown>>().notNull().default({}),
  sortOrder: integer('sort_order').notNull().default(0),
  ...timestamps(),
});

export const fees = pgTable('fees', {
  id: serialId(),
  eventId: integer('event_id'),
  sessionId: integer('session_id'),
  name: text('name').notNull(),
  kind: text('kind').$type<'fixed' | 'percent'>().notNull(),
  amount: integer('amount').notNull(),
});

export const vouchers = pgTable('vouchers', {
  ...organiserOwned(),
  code: text('code').notNull(),
  kind: text('kind').$type<'percent' | 'fixed'>().notNull(),
  value: integer('value').notNull(),
  validFrom: ts('valid_from'),
  validUntil: ts('valid_until'),
  maxUses: integer('max_uses'),
  /** D75: false = disabled by the organiser (not applicable, withdrawn from live carts). */
  active: boolean('active').notNull().default(true),
  eventId: integer('event_id'),
  sessionId: integer('session_id'),
  rateId: integer('rate_id'),
  createdAt: createdAt().defaultNow(),
});

/**
 * The objects a catalogue import created, by the document's import_key (scope), kind and own key
 * (migration 0290): a second import of the document updates them instead of creating copies.
 */
export const catalogueImportKeys = pgTable(
  'catalogue_import_keys',
  {
    scope: text('scope').notNull(),
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    objectId: integer('object_id').notNull(),
    createdAt: createdAt().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.kind, t.key] })],
);

/** Changes of a session that buyers and channels are told about (D74, 0170): a cancellation or a move. */
export const sessionChanges = pgTable('session_changes', {
  id: bigserialId(),
  sessionId: integer('session_id').notNull(),
  kind: text('kind').$type<'cancelled' | 'moved'>().notNull(),
  oldStart: ts('old_start').notNull(),
  newStart: ts('new_start').notNull(),
  refund: boolean('refund').notNull().default(false),
  createdAt: createdAt(),
});

/** A message to every ticket holder of a session (D67, 0190), e-mailed once per recipient through the queue. */
export const sessionMessages = pgTable('session_messages', {
  id: bigserialId(),
  sessionId: integer('session_id').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  actor: text('actor').notNull(),
  recipients: integer('recipients').notNull(),
  createdAt: createdAt(),
});

/** An organiser's automatic erasure of buyers' data, days after each session (D68, 0180); no row: never. */
export const organiserPrivacy = pgTable('organiser_privacy', {
  organiserId: integer('organiser_id').primaryKey(),
  eraseAfterDays: integer('erase_after_days').notNull(),
  updatedAt: updatedAt(),
});
