-- The hot path on PostgreSQL (pg-authenticate.ts): a whole group of requests in one statement, one
-- round trip and one commit. The requests' keys and accounts; each reading account's counter
-- raised by its requests up to the limit, recording how much it added (`applied`: computed under
-- the row's lock from the row as it stands, so concurrent instances stay exact); the last-use
-- stamps (at most once a minute a key). Every request comes back with its key, its account and its
-- account's counter before and after; pg-authenticate.ts decides, in request order, which
-- requests fitted.
--
-- Not a migration: applied with CREATE OR REPLACE after the migrations each time the registry is
-- opened (schema.ts, `dialect.routines`), so a change here is a change of this file alone.
CREATE OR REPLACE FUNCTION tariff_authenticate(fingerprints text[], stamps text[], touch_before text[], periods text[], read_limit integer)
RETURNS TABLE (ord integer, key_id integer, fingerprint text, account jsonb, period text, used_before integer, used_after integer)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH req AS (
      SELECT r.ord::integer AS ord, k.id AS key_id, k.fingerprint, k.last_used_at, a.id AS owner, to_jsonb(a) AS account,
        r.period, r.stamp, r.before
      FROM unnest(fingerprints, periods, stamps, touch_before) WITH ORDINALITY AS r(fp, period, stamp, before, ord)
      JOIN api_keys k ON k.fingerprint = r.fp AND k.revoked_at IS NULL
      JOIN accounts a ON a.id = k.account_id AND NOT a.blocked),
    want AS (SELECT owner, period, LEAST(count(*)::integer, read_limit) AS n FROM req WHERE period IS NOT NULL GROUP BY owner, period),
    bumped AS (
      INSERT INTO usage_counters AS u (account_id, counter, period_start, used, applied)
        SELECT owner, 'read', period, n, n FROM want WHERE true
      ON CONFLICT (account_id, counter, period_start) DO UPDATE
        SET used = u.used + GREATEST(0, LEAST(excluded.applied, read_limit - u.used)),
          applied = GREATEST(0, LEAST(excluded.applied, read_limit - u.used))
      RETURNING u.account_id, u.period_start, u.used - u.applied AS used_before, u.used AS used_after),
    touched AS (
      UPDATE api_keys k SET last_used_at = t.stamp
      FROM (SELECT DISTINCT ON (key_id) key_id, stamp FROM req WHERE last_used_at IS NULL OR last_used_at <= before ORDER BY key_id, ord) t
      WHERE k.id = t.key_id)
    SELECT req.ord, req.key_id, req.fingerprint, req.account, req.period, b.used_before, b.used_after
    FROM req LEFT JOIN bumped b ON b.account_id = req.owner AND b.period_start = req.period;
END
$fn$;
