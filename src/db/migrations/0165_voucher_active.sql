-- D75: an organiser can disable a voucher (admin API `active: false`, dashboard). A disabled voucher
-- cannot be applied, and carts that have not started paying lose it at their next change or confirm
-- (409 voucher_withdrawn; the rule is voucher_withdrawn, src/db/functions/014_voucher_withdrawn.sql).
ALTER TABLE vouchers ADD COLUMN active boolean NOT NULL DEFAULT true;
