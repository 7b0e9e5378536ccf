-- Issue 27 (PostgreSQL work per purchase): the statement trigger on order_items inserts (0270) ran
-- on every hold, with a transition table and a join to the orders, and never wrote anything: every
-- path of the service inserts items only into a cart (a pending order), which the sales figures do
-- not count, and an order's items are counted when it completes (the orders trigger reads them
-- then). track_functions on bench:flash put it at a fifth of the closing's trigger work. Updates and
-- deletes of items stay followed (they are rare and may touch a counted order's items).
DROP TRIGGER sales_figures_items_insert ON order_items;
