import { Type } from '@fastify/type-provider-typebox';
import { IdParam, Int32, Nullable, Text } from '../../http/schemas.js';

// TypeBox schemas of the admin API's check-in routes (/api/admin/v1/checkin/...).

const Ids = Type.Array(IdParam, { maxItems: 200 });

export const ListParams = Type.Object({ listId: IdParam });
export const DeviceParams = Type.Object({ deviceId: IdParam });

export const ListCreate = Type.Object(
  {
    organiser_id: Type.Optional(IdParam),
    name: Text(200, { minLength: 1 }),
    session_ids: Type.Array(IdParam, { minItems: 1, maxItems: 200 }),
    sector_ids: Type.Optional(Nullable(Ids)),
    allow_reentry: Type.Optional(Type.Boolean()),
    opens_minutes_before: Type.Optional(Int32({ minimum: 0, maximum: 10080 })),
  },
  { additionalProperties: false },
);
export const ListUpdate = Type.Partial(Type.Omit(ListCreate, ['organiser_id']), { additionalProperties: false });

export const List = Type.Object({
  id: Type.Integer(),
  organiser_id: Type.Integer(),
  name: Type.String(),
  allow_reentry: Type.Boolean(),
  opens_minutes_before: Type.Integer(),
  session_ids: Type.Array(Type.Integer()),
  sector_ids: Nullable(Type.Array(Type.Integer())),
  created_at: Type.String(),
});

export const DeviceCreate = Type.Object(
  { organiser_id: Type.Optional(IdParam), name: Text(100, { minLength: 1 }), list_ids: Type.Array(IdParam, { minItems: 1, maxItems: 50 }) },
  { additionalProperties: false },
);

const deviceFields = {
  id: Type.Integer(),
  organiser_id: Type.Integer(),
  name: Type.String(),
  token_last4: Type.String(),
  list_ids: Type.Array(Type.Integer()),
  created_at: Type.String(),
  last_seen_at: Nullable(Type.String()),
  revoked_at: Nullable(Type.String()),
};
export const Device = Type.Object(deviceFields);
export const NewDevice = Type.Object({
  ...deviceFields,
  token: Type.String({ description: 'The device token, shown only this once' }),
  setup_url: Type.String({ description: 'PUBLIC_BASE_URL/checkin/#setup=<token>: the content of the setup QR code' }),
});

export const Counts = Type.Object({
  list: List,
  sessions: Type.Array(
    Type.Object({ session_id: Type.Integer(), event_name: Type.String(), starts_at: Type.String(), sold: Type.Integer(), checked_in: Type.Integer(), inside: Type.Integer() }),
  ),
  devices: Type.Array(Type.Object({ device_id: Type.Integer(), device_name: Type.String(), entries: Type.Integer(), refused: Type.Integer() })),
});

export const ScansQuery = Type.Object(
  {
    twice: Type.Optional(Type.Boolean({ description: 'only already_used scans: who tried to enter twice' })),
    before_id: Type.Optional(IdParam),
    limit: Type.Optional(Int32({ minimum: 1, maximum: 500 })),
  },
  { additionalProperties: false },
);
export const Scan = Type.Object({
  id: Type.Integer(),
  scanned_at: Type.String(),
  received_at: Type.String(),
  device_name: Type.String(),
  direction: Type.String(),
  result: Type.String(),
  offline: Type.Boolean(),
  ticket_id: Nullable(Type.Integer()),
  buyer_name: Nullable(Type.String()),
  first_scan: Nullable(Type.Object({ scanned_at: Type.String(), device_name: Type.String() })),
});

export const SigningKey = Type.Object({
  kid: Type.String(),
  public_key: Type.String(),
  created_at: Type.String(),
  state: Type.Union([Type.Literal('active'), Type.Literal('retired'), Type.Literal('withdrawn')]),
});
export const Rotated = Type.Object({ kid: Type.String(), retired: Nullable(Type.String()) });

export const TicketParams = Type.Object({ ticketId: IdParam });
export const Reissued = Type.Object({ ticket_id: Type.Integer(), v: Type.Integer({ description: 'the new issue version' }) });
