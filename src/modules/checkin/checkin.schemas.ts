import { Type, type Static } from '@fastify/type-provider-typebox';
import { IdParam, Int32, Nullable, Text, Timestamp } from '../../http/schemas.js';

// TypeBox schemas of the scan API /api/checkin/v1 (D54, docs/checkin.md). As the check-in contract
// fixes them, answers are plain JSON objects (no success envelope); errors use the D4 envelope.

const SCAN_RESULTS = ['valid', 'already_used', 'invalid', 'wrong_list', 'refunded', 'not_yet_valid', 'exited'] as const;
const ScanResultSchema = Type.Union(SCAN_RESULTS.map((r) => Type.Literal(r)));
const Direction = Type.Union([Type.Literal('entry'), Type.Literal('exit')]);
/** A secret as read from a QR code or typed: format 2 is about 150 characters; 500 leaves room for junk to be refused as invalid. */
const Secret = Text(500, { minLength: 1 });

export const ListParams = Type.Object({ listId: IdParam });

export const Device = Type.Object({
  device: Type.Object({ id: Type.Integer(), name: Type.String() }),
  lists: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      allow_reentry: Type.Boolean(),
      opens_minutes_before: Type.Integer({ description: 'Admission opens this many minutes before a session starts (not_yet_valid before).' }),
      sessions: Type.Array(Type.Object({ id: Type.Integer(), event_name: Type.String(), starts_at: Type.String(), ends_at: Type.Optional(Type.String()) })),
      sector_ids: Nullable(Type.Array(Type.Integer())),
    }),
  ),
  public_keys: Type.Array(Type.Object({ kid: Type.String(), public_key: Type.String({ description: 'b64url of the 32-byte raw Ed25519 public key' }) })),
  server_time: Type.String(),
  time_zone: Type.String({ description: "The deployment's IANA time zone (TIMEZONE, D12): the scanner shows times in it, not in the phone's." }),
});

export const ScanBody = Type.Object(
  {
    secret: Secret,
    direction: Type.Optional(Direction),
    scanned_at: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);
export type ScanInput = Static<typeof ScanBody>;

/** Where a ticket sits and whose it is: the same fields in a scan's answer and in the scanner's download. */
const ticketPlace = {
  sector: Type.String(),
  row: Nullable(Type.String()),
  seat: Nullable(Type.String()),
  zone: Nullable(Type.String()),
  rate: Type.String(),
  buyer_name: Nullable(Type.String()),
};

const TicketInfo = Type.Object({
  id: Type.Integer(),
  session_id: Type.Integer(),
  event_name: Type.String(),
  starts_at: Type.String(),
  ...ticketPlace,
});
const FirstScan = Type.Object({ scanned_at: Type.String(), device_name: Type.String() });

export const ScanAnswer = Type.Object({
  result: ScanResultSchema,
  ticket: Type.Optional(TicketInfo),
  first_scan: Type.Optional(FirstScan),
});

export const BatchBody = Type.Object(
  {
    scans: Type.Array(
      Type.Object(
        {
          client_scan_id: Type.String({ format: 'uuid', maxLength: 36 }),
          secret: Secret,
          direction: Type.Optional(Direction),
          scanned_at: Timestamp,
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);
export type BatchInput = Static<typeof BatchBody>;

export const BatchAnswer = Type.Object({
  results: Type.Array(Type.Object({ client_scan_id: Type.String(), result: ScanResultSchema, first_scan: Type.Optional(FirstScan) })),
});

export const TicketsQuery = Type.Object(
  {
    cursor: Type.Optional(Text(200, { pattern: '^[A-Za-z0-9_-]*$', description: 'next_cursor of the previous answer; none for a full download' })),
    limit: Type.Optional(Int32({ minimum: 1, maximum: 5000, default: 5000 })),
  },
  { additionalProperties: false },
);

export const TicketsAnswer = Type.Object({
  tickets: Type.Array(
    Type.Object({
      id: Type.Integer(),
      kid: Type.Optional(Type.String()),
      v: Type.Integer({ description: 'issue version: a secret with another version is not this ticket any more' }),
      legacy_code_sha256: Type.Optional(Type.String({ description: 'SHA-256 (b64url) of the ticket code printed under the QR (the whole QR of a format-1 ticket): a code typed in at the gate is matched by it offline' })),
      session_id: Type.Integer(),
      ...ticketPlace,
      status: Type.Union([Type.Literal('valid'), Type.Literal('revoked')]),
      checked_in_at: Type.Optional(Type.String()),
    }),
  ),
  next_cursor: Type.String(),
  has_more: Type.Boolean(),
});

export const StatusAnswer = Type.Object({
  sold: Type.Integer(),
  checked_in: Type.Integer(),
  inside: Type.Optional(Type.Integer()),
  per_device: Type.Array(Type.Object({ device_name: Type.String(), entries: Type.Integer() })),
});
