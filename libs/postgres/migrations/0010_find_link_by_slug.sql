-- A link by slug, as findLinkBySlug reads it (links.ts): the newest of the
-- projection's row and the committed claim. It is what every redirect cache
-- miss runs, thousands a second when the links followed outnumber the cache.
-- Sent as a statement, Postgres plans it on every call, and planning the
-- union of two index scans cost more than running it: 0.22 ms a lookup
-- against 0.10 ms through this function, whose query PL/pgSQL plans once per
-- connection and keeps (pgbench, 1,000,000 links; docs/performance.md, "A cold
-- cache"). A named prepared statement would keep the plan too, but the
-- embedded mode's Postgres is one session shared by every connection, where
-- two connections preparing one name collide.
CREATE FUNCTION find_link_by_slug(p_slug text)
  RETURNS TABLE (
    link_id uuid,
    account_id uuid,
    destination_url text,
    tag text,
    created_at timestamptz,
    updated_at timestamptz,
    deleted_at timestamptz,
    version integer
  )
  LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
    SELECT l.link_id, l.account_id, l.destination_url, l.tag, l.created_at, l.updated_at, l.deleted_at, l.version
      FROM links AS l WHERE l.slug = p_slug
    UNION ALL
    SELECT c.link_id, c.account_id, c.destination_url, c.tag, c.created_at, c.updated_at, c.deleted_at, c.version
      FROM slug_claims AS c WHERE c.slug = p_slug AND c.state = 'committed'
    -- By position: `version` would name the OUT column.
    ORDER BY 8 DESC
    LIMIT 1;
END
$$;
