-- The partner's own web site (issue 16, "a way back"): the portal's confirmation page of a widget
-- channel (model C) links back to it, and the page header of a channel without a storefront goes
-- there instead of to a storefront that does not exist. NULL: the channel has none.
ALTER TABLE sales_channels ADD COLUMN website_url text;
