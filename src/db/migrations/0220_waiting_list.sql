-- D69 waiting list: one row per buyer waiting for seats of a session (optionally of one sector or
-- one rate), in arrival order (id). An entry gets at most one offer in its life: the scheduler's
-- waiting-list job holds seats for it through cart_hold_seats (a pending order of the entry's
-- channel, offer_order_id) and moves it from 'waiting' to 'offered' by a conditional UPDATE; the
-- offer is taken when that order completes ('converted') and passes on when it ends otherwise
-- ('lapsed'). 'left': the buyer left the list. The database enforces the once-only rules:
--   * offer_order_id is unique (one order serves one offer) and set only from 'waiting';
--   * the offer e-mail is the outbox row (order_id, kind 'waitinglist_offer'), unique by 0145's index;
--   * one live entry (waiting or offered) per session and e-mail address.
-- token_hash: SHA-256 of the buyer's entry token (the token is shown once, in the join answer and
-- the offer e-mail, and lets the buyer read their position).
CREATE TABLE waiting_list_entries (
  id bigserial PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  channel_id integer NOT NULL REFERENCES sales_channels(id),
  session_id integer NOT NULL REFERENCES sessions(id),
  sector_id integer REFERENCES sectors(id),
  rate_id integer REFERENCES rates(id),
  quantity integer NOT NULL CHECK (quantity > 0),
  email text NOT NULL,
  name text,
  lang text NOT NULL,
  status text NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'offered', 'converted', 'lapsed', 'left')),
  created_at timestamptz NOT NULL,
  offer_order_id bigint UNIQUE REFERENCES orders(id),
  offered_at timestamptz,
  offer_expires_at timestamptz,
  settled_at timestamptz,
  CHECK ((status = 'waiting') = (offer_order_id IS NULL) OR status = 'left')
);
CREATE INDEX waiting_list_entries_session_idx ON waiting_list_entries (session_id, id) WHERE status IN ('waiting', 'offered');
CREATE UNIQUE INDEX waiting_list_entries_live_email_uq ON waiting_list_entries (session_id, lower(email)) WHERE status IN ('waiting', 'offered');
