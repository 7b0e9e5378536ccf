import { Type } from '@fastify/type-provider-typebox';
import { EmailAddress, Envelope, IdParam, Nullable, Timestamp } from '../../http/schemas.js';
import { adminErrors, pageQuery, Params } from '../../http/admin-api.js';

// TypeBox schemas of the admin shell's own part of the admin API (/api/admin/v1): accounts,
// organisers and the audit log. Each module's part has its own (<module>.admin.schemas.ts);
// the pieces they share are in src/http/admin-api.ts. Timestamps are ISO 8601 with an offset.

export { adminErrors, Params };

const Id = IdParam;

// ---- accounts

export const Me = Type.Object({
  user_id: Nullable(Type.Integer()),
  email: Type.String(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('promoter')]),
  organiser_id: Nullable(Type.Integer()),
});

export const UserCreate = Type.Object(
  {
    email: EmailAddress(),
    password: Type.Optional(Type.String({ minLength: 12, maxLength: 1024, description: 'The password, at least 12 characters; or leave it out and send invite: true' })),
    invite: Type.Optional(
      Type.Boolean({
        description: 'true: no password now; an invitation link valid 72 hours is returned and e-mailed to the person (D65). Exactly one of password and invite: true',
      }),
    ),
    role: Type.Union([Type.Literal('admin'), Type.Literal('promoter')]),
    organiser_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
const Invitation = Type.Object({
  link: Type.String({ description: 'The invitation link (also e-mailed to the account); shown only in this answer' }),
  expires_at: Timestamp,
});
export const InvitationSent = Type.Object({ user_id: Type.Integer(), email: Type.String(), invitation: Invitation });
export const User = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: Type.String(),
  organiser_id: Nullable(Type.Integer()),
  created_at: Timestamp,
  invitation: Type.Optional(Nullable(Invitation)),
});

const RefundFees = Type.Boolean({ description: 'Whether refunds give the fees back too (D58); default true' });
const ReplyTo = Nullable(EmailAddress("the box office address: Reply-To of the organiser's buyer e-mails (null: MAIL_REPLY_TO, else none)"));
export const OrganiserCreate = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), refund_fees: Type.Optional(RefundFees), reply_to_email: Type.Optional(ReplyTo) },
  { additionalProperties: false },
);
export const OrganiserUpdate = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), refund_fees: Type.Optional(RefundFees), reply_to_email: Type.Optional(ReplyTo) },
  { additionalProperties: false, minProperties: 1 },
);
export const Organiser = Type.Object({ id: Type.Integer(), name: Type.String(), refund_fees: Type.Boolean(), reply_to_email: Nullable(Type.String()), created_at: Timestamp });


// ---- audit

export const AuditQuery = Type.Object(pageQuery, { additionalProperties: false });
export const AuditEntry = Type.Object({
  id: Type.Integer(),
  user_id: Nullable(Type.Integer()),
  user_email: Type.String(),
  action: Type.String(),
  target_type: Type.String(),
  target_id: Type.String(),
  organiser_id: Nullable(Type.Integer()),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});

export { Envelope };
