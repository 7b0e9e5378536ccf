-- Foundation: catalogue, channels, credentials, inventory, orders.
-- Money columns are integer minor units (DECISIONS D11); timestamps are timestamptz.

CREATE TABLE organisers (
  id serial PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE venues (
  id serial PRIMARY KEY,
  organiser_id integer NOT NULL REFERENCES organisers(id),
  name text NOT NULL,
  address text,
  city text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A sector of a venue's map: numbered (has seats) or an unnumbered zone (has a capacity).
CREATE TABLE sectors (
  id serial PRIMARY KEY,
  venue_id integer NOT NULL REFERENCES venues(id) ON DELETE CASCADE,
  name text NOT NULL,
  numbered boolean NOT NULL,
  capacity integer NOT NULL DEFAULT 0 CHECK (capacity >= 0),
  sort_order integer NOT NULL DEFAULT 0
);
CREATE INDEX sectors_venue_idx ON sectors (venue_id);

CREATE TABLE seats (
  id serial PRIMARY KEY,
  sector_id integer NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
  row text NOT NULL,
  number text NOT NULL,
  x real NOT NULL,
  y real NOT NULL,
  UNIQUE (sector_id, row, number)
);

CREATE TABLE events (
  id serial PRIMARY KEY,
  organiser_id integer NOT NULL REFERENCES organisers(id),
  venue_id integer NOT NULL REFERENCES venues(id),
  default_lang text NOT NULL DEFAULT 'es',
  status text NOT NULL DEFAULT 'published' CHECK (status IN ('draft', 'published', 'archived')),
  image_url text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE event_translations (
  event_id integer NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  lang text NOT NULL,
  name text NOT NULL,
  description text,
  PRIMARY KEY (event_id, lang)
);

CREATE TABLE sessions (
  id serial PRIMARY KEY,
  event_id integer NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  venue_id integer NOT NULL REFERENCES venues(id),
  start_datetime timestamptz NOT NULL,
  end_datetime timestamptz,
  status text NOT NULL DEFAULT 'on_sale' CHECK (status IN ('draft', 'on_sale', 'closed', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_event_idx ON sessions (event_id, start_datetime);

-- Rates are per session and optionally per sector (NULL sector = every sector of the session).
CREATE TABLE rates (
  id serial PRIMARY KEY,
  session_id integer NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  sector_id integer REFERENCES sectors(id) ON DELETE CASCADE,
  name text NOT NULL,
  names jsonb NOT NULL DEFAULT '{}'::jsonb,
  price integer NOT NULL CHECK (price >= 0),
  meta jsonb NOT NULL DEFAULT '{}'::jsonb,
  sort_order integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rates_session_idx ON rates (session_id);

-- Management fees per ticket, on an event (all its sessions) or on one session.
-- kind 'fixed': amount in minor units; kind 'percent': amount in basis points of the base price.
CREATE TABLE fees (
  id serial PRIMARY KEY,
  event_id integer REFERENCES events(id) ON DELETE CASCADE,
  session_id integer REFERENCES sessions(id) ON DELETE CASCADE,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('fixed', 'percent')),
  amount integer NOT NULL CHECK (amount >= 0),
  CHECK (event_id IS NOT NULL OR session_id IS NOT NULL)
);

-- kind 'percent': value in basis points (1000 = 10 %); kind 'fixed': value in minor units per order.
CREATE TABLE vouchers (
  id serial PRIMARY KEY,
  organiser_id integer NOT NULL REFERENCES organisers(id),
  code text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('percent', 'fixed')),
  value integer NOT NULL CHECK (value > 0),
  valid_from timestamptz,
  valid_until timestamptz,
  max_uses integer CHECK (max_uses IS NULL OR max_uses > 0),
  event_id integer REFERENCES events(id) ON DELETE CASCADE,
  session_id integer REFERENCES sessions(id) ON DELETE CASCADE,
  rate_id integer REFERENCES rates(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organiser_id, code)
);

CREATE TABLE sales_channels (
  id serial PRIMARY KEY,
  organiser_id integer NOT NULL REFERENCES organisers(id),
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name text NOT NULL,
  integration_mode text NOT NULL CHECK (integration_mode IN
    ('portal_only', 'portal_external_payment', 'widget_platform_payment', 'widget_external_payment')),
  checkout_url text,
  branding jsonb NOT NULL DEFAULT '{}'::jsonb,
  cart_ttl_seconds integer CHECK (cart_ttl_seconds IS NULL OR cart_ttl_seconds > 0),
  default_lang text NOT NULL DEFAULT 'es',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Which events a channel sells. A channel sells only events listed here.
CREATE TABLE channel_events (
  channel_id integer NOT NULL REFERENCES sales_channels(id) ON DELETE CASCADE,
  event_id integer NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  PRIMARY KEY (channel_id, event_id)
);
CREATE INDEX channel_events_event_idx ON channel_events (event_id);

-- Widget keys are stored only as SHA-256 hashes (D7); last_four helps an operator tell them apart.
CREATE TABLE widget_keys (
  id serial PRIMARY KEY,
  channel_id integer NOT NULL REFERENCES sales_channels(id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  last_four text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX widget_keys_channel_idx ON widget_keys (channel_id) WHERE revoked_at IS NULL;

-- Opaque bearer tokens, stored only as SHA-256 hashes (D8). client_id groups tokens for D38.
CREATE TABLE access_tokens (
  id bigserial PRIMARY KEY,
  channel_id integer NOT NULL REFERENCES sales_channels(id) ON DELETE CASCADE,
  widget_key_id integer NOT NULL REFERENCES widget_keys(id) ON DELETE CASCADE,
  client_id text NOT NULL DEFAULT '',
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX access_tokens_live_idx ON access_tokens (channel_id, client_id) WHERE revoked_at IS NULL;
CREATE INDEX access_tokens_cap_idx ON access_tokens (channel_id, id DESC) WHERE revoked_at IS NULL;

CREATE TABLE customers (
  id serial PRIMARY KEY,
  name text NOT NULL,
  surname text NOT NULL,
  email text NOT NULL,
  phone text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- An order is a cart until completed. type/status follow the sales report (SPEC): a refund is its
-- own row of type 'refund' pointing at the order it refunds.
CREATE TABLE orders (
  id bigserial PRIMARY KEY,
  order_token text NOT NULL UNIQUE,
  reference text NOT NULL UNIQUE,
  channel_id integer NOT NULL REFERENCES sales_channels(id),
  type text NOT NULL DEFAULT 'purchase' CHECK (type IN ('purchase', 'refund', 'reservation')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'cancelled', 'expired')),
  lang text NOT NULL DEFAULT 'es',
  currency text NOT NULL,
  base_amount integer NOT NULL DEFAULT 0,
  discount_amount integer NOT NULL DEFAULT 0,
  fee_amount integer NOT NULL DEFAULT 0,
  total_amount integer NOT NULL DEFAULT 0,
  expires_at timestamptz,
  customer_id integer REFERENCES customers(id),
  payment_method text,
  transaction_id text,
  refunded_order_id bigint REFERENCES orders(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX orders_channel_created_idx ON orders (channel_id, created_at DESC);
CREATE INDEX orders_pending_expiry_idx ON orders (expires_at) WHERE status = 'pending';

-- One sellable unit of one session: a numbered seat (seat_id set; its id is the session_seat_id)
-- or one place of an unnumbered zone (seat_id NULL). Claims are conditional UPDATEs on these rows
-- (D14); a hold whose hold_expires_at has passed counts as free (D15).
CREATE TABLE session_seats (
  id serial PRIMARY KEY,
  session_id integer NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  sector_id integer NOT NULL REFERENCES sectors(id),
  seat_id integer REFERENCES seats(id),
  status text NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'held', 'sold', 'blocked')),
  order_id bigint REFERENCES orders(id),
  hold_expires_at timestamptz,
  UNIQUE (session_id, seat_id)
);
CREATE INDEX session_seats_session_idx ON session_seats (session_id, sector_id);
CREATE INDEX session_seats_order_idx ON session_seats (order_id) WHERE order_id IS NOT NULL;

CREATE TABLE order_items (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  event_id integer NOT NULL REFERENCES events(id),
  session_id integer NOT NULL REFERENCES sessions(id),
  sector_id integer NOT NULL REFERENCES sectors(id),
  session_seat_id integer NOT NULL REFERENCES session_seats(id),
  rate_id integer NOT NULL REFERENCES rates(id),
  base_amount integer NOT NULL,
  discount_amount integer NOT NULL DEFAULT 0,
  fee_amount integer NOT NULL DEFAULT 0,
  total_amount integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (total_amount = base_amount + discount_amount + fee_amount)
);
CREATE INDEX order_items_order_idx ON order_items (order_id);

CREATE TABLE order_vouchers (
  order_id bigint NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  voucher_id integer NOT NULL REFERENCES vouchers(id),
  code text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (order_id, voucher_id)
);
