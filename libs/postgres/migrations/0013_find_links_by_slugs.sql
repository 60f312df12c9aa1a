-- Several links by slug in one round trip, each as find_link_by_slug (0010)
-- reads one: the newest of the projection's row and the committed claim. A
-- redirector's cache misses come in bursts (a restart, a campaign's new
-- links): looked up one statement each, a burst queued on the pool's
-- connections, and each statement paid its own round trip, parse and
-- function call. The redirector sends the misses that arrive while its
-- lookups are under way together (services/redirector, lookup.ts). A slug
-- with no live row is absent from the answer; one asked twice is answered once.
CREATE FUNCTION find_links_by_slugs(p_slugs text[])
  RETURNS TABLE (
    slug text,
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
    SELECT asked.slug, found.*
      FROM (SELECT DISTINCT s AS slug FROM unnest(p_slugs) AS s) AS asked
      CROSS JOIN LATERAL (
        SELECT l.link_id, l.account_id, l.destination_url, l.tag, l.created_at, l.updated_at, l.deleted_at, l.version
          FROM links AS l WHERE l.slug = asked.slug
        UNION ALL
        SELECT c.link_id, c.account_id, c.destination_url, c.tag, c.created_at, c.updated_at, c.deleted_at, c.version
          FROM slug_claims AS c WHERE c.slug = asked.slug AND c.state = 'committed'
        -- By position: `version` would name the OUT column.
        ORDER BY 8 DESC
        LIMIT 1
      ) AS found;
END
$$;
