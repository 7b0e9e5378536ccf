-- D57: carts belong to their buyer. An order created with a widget-scope token of a widget model
-- (C, D) carries that buyer's key in orders.buyer_key (`w:<channel>:<client_id>`, written for the
-- hold caps, src/modules/orders/orders.buyer.ts; tokens without a client_id are the one buyer
-- `w:<channel>:`). Such an order is open only to a caller with the same key. p_caller is the key of
-- the caller when it is a widget-scope token of a widget model, NULL for everyone else (the
-- channel's server-scope tokens, the portal): NULL sees every order of the channel. An order
-- without a widget buyer (created by a server token, the portal, the box office) is open to every
-- caller of its channel.
--
-- The one definition of who may use a cart: the cart lookups of orders.repo.ts (read, change,
-- cancel, the D17 create with an existing order_token) and cart_hold_seat's add path call it; a
-- caller it refuses gets the 404 of an unknown order (D5). LANGUAGE sql, IMMUTABLE, one expression:
-- the planner inlines it (see 010_seat_is_free.sql).
CREATE OR REPLACE FUNCTION cart_open_to(p_buyer_key text, p_caller text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_caller IS NULL OR p_buyer_key IS NULL OR left(p_buyer_key, 2) <> 'w:' OR p_buyer_key = p_caller
$$;
