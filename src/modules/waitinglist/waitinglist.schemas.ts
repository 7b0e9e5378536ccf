import { Type } from '@fastify/type-provider-typebox';
import { ChannelLangParams, EmailAddress, Envelope, IdParam, Int32, LangParam, Nullable, SlugParam, Text, Timestamp } from '../../http/schemas.js';

// TypeBox schemas of the waiting list (D69, docs/waiting-list.md).


const EntryToken = Text(64, { pattern: '^wl_[A-Za-z0-9]{32}$', description: 'the entry token of the join answer (wl_...)' });

export const SessionWaitingListParams = Type.Object({ ...ChannelLangParams.properties, sessionId: IdParam });
export const EntryParams = Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, entryToken: EntryToken });

export const JoinBody = Type.Object(
  {
    email: EmailAddress('where the offer e-mail goes'),
    quantity: Int32({ minimum: 1, maximum: 100, description: 'seats wanted together (at most MAX_ITEMS_PER_ORDER and the session\'s max_tickets_per_buyer)' }),
    sector_id: Type.Optional(IdParam),
    rate_id: Type.Optional(IdParam),
    name: Type.Optional(Text(200, { description: "the buyer's name, for the organiser's list" })),
  },
  { additionalProperties: false, description: 'D69: join the waiting list of a session, optionally of one sector (numbered seats or an unnumbered zone) and one rate' },
);

const Status = Type.Union([Type.Literal('waiting'), Type.Literal('offered'), Type.Literal('converted'), Type.Literal('lapsed'), Type.Literal('left')], {
  description: 'waiting; offered (seats held for you: see offer); converted (the offer was bought); lapsed (the offer ran out and passed on); left',
});

const Offer = Type.Object({
  order_token: Text(64, { description: 'the held order (D35): read it, pay it (portal checkout) or, in model D, confirm it' }),
  expires_at: Timestamp,
  checkout_url: Nullable(Text(2000, { description: 'the portal checkout of the order (models A, B, C); null in model D' })),
});

const Entry = Type.Object({
  token: Type.Optional(Text(64, { description: 'only in the join answer: keep it to read the position' })),
  status: Status,
  position: Nullable(Int32({ minimum: 1, description: '1 = next in line; null unless waiting' })),
  session_id: IdParam,
  sector_id: Nullable(IdParam),
  rate_id: Nullable(IdParam),
  quantity: Int32({ minimum: 1 }),
  email: Text(320),
  created_at: Timestamp,
  offer: Nullable(Offer),
});

export const EntryResponse = Envelope(Entry);

const Count = Int32({ minimum: 0 });
const figureFields = {
  waiting: Count,
  waiting_tickets: Count,
  offered: Int32({ minimum: 0, description: 'offers open now (seats held for the buyer)' }),
  converted: Count,
  converted_tickets: Count,
  lapsed: Int32({ minimum: 0, description: 'offers that ran out and passed to the next entry' }),
  left: Count,
  offers: Int32({ minimum: 0, description: 'offers made: offered + converted + lapsed' }),
  conversion_rate: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'converted / (converted + lapsed); null before any offer ended' })),
};
const Figures = Type.Object(figureFields);

/** The sales overview's waiting-list figures (D66): totals and per session. */
export const OverviewWaitingList = Type.Object({
  ...figureFields,
  sessions: Type.Array(Type.Object({ session_id: IdParam, ...figureFields })),
});

export const AdminWaitingList = Type.Object({
  session_id: IdParam,
  offer_minutes: Int32({ minimum: 1, description: 'WAITINGLIST_OFFER_MINUTES: how long an offer holds its seats' }),
  figures: Figures,
  entries: Type.Array(
    Type.Object({
      id: IdParam,
      position: Nullable(Int32({ minimum: 1 })),
      status: Status,
      email: Text(320),
      name: Nullable(Text(200)),
      quantity: Int32({ minimum: 1 }),
      sector_id: Nullable(IdParam),
      rate_id: Nullable(IdParam),
      channel_id: IdParam,
      lang: Text(5),
      created_at: Timestamp,
      offered_at: Nullable(Timestamp),
      offer_expires_at: Nullable(Timestamp),
      settled_at: Nullable(Timestamp),
      order_reference: Nullable(Text(32)),
    }),
  ),
});
