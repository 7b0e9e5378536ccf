-- The slot of the kept sales figures this backend writes (270_sales_figures_add.sql says why 64):
-- the one definition for sales_figures_add and sales_figures_add_order. An SQL function of one
-- expression, which PostgreSQL inlines into the statements that use it.
CREATE OR REPLACE FUNCTION sales_figures_slot() RETURNS smallint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT (pg_backend_pid() % 64)::smallint
$$;
