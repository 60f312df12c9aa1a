-- A link's redirect rules and weighted variants (@shortlink/redirect-rules),
-- held whole beside the link as its events carry them:
-- {"rules": [...], "variants": [...] | null}. NULL for a link without any,
-- which is almost every link: a NULL costs a row one bit. The write model's
-- claim and the projection both hold it, as they hold the destination, so a
-- lookup answers the newest of the two with its routing.
ALTER TABLE slug_claims ADD COLUMN routing jsonb;
ALTER TABLE links ADD COLUMN routing jsonb;

-- find_link_by_slug (0010) and find_links_by_slugs (0013) with the routing:
-- new functions, so a service of the previous release keeps calling the old
-- ones while a rolling deploy runs.
CREATE FUNCTION find_link_by_slug_v2(p_slug text)
  RETURNS TABLE (
    link_id uuid,
    account_id uuid,
    destination_url text,
    tag text,
    created_at timestamptz,
    updated_at timestamptz,
    deleted_at timestamptz,
    version integer,
    routing jsonb
  )
  LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
    SELECT l.link_id, l.account_id, l.destination_url, l.tag, l.created_at, l.updated_at, l.deleted_at, l.version, l.routing
      FROM links AS l WHERE l.slug = p_slug
    UNION ALL
    SELECT c.link_id, c.account_id, c.destination_url, c.tag, c.created_at, c.updated_at, c.deleted_at, c.version, c.routing
      FROM slug_claims AS c WHERE c.slug = p_slug AND c.state = 'committed'
    -- By position: `version` would name the OUT column.
    ORDER BY 8 DESC
    LIMIT 1;
END
$$;

CREATE FUNCTION find_links_by_slugs_v2(p_slugs text[])
  RETURNS TABLE (
    slug text,
    link_id uuid,
    account_id uuid,
    destination_url text,
    tag text,
    created_at timestamptz,
    updated_at timestamptz,
    deleted_at timestamptz,
    version integer,
    routing jsonb
  )
  LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
    SELECT asked.slug, found.*
      FROM (SELECT DISTINCT s AS slug FROM unnest(p_slugs) AS s) AS asked
      CROSS JOIN LATERAL (
        SELECT l.link_id, l.account_id, l.destination_url, l.tag, l.created_at, l.updated_at, l.deleted_at, l.version, l.routing
          FROM links AS l WHERE l.slug = asked.slug
        UNION ALL
        SELECT c.link_id, c.account_id, c.destination_url, c.tag, c.created_at, c.updated_at, c.deleted_at, c.version, c.routing
          FROM slug_claims AS c WHERE c.slug = asked.slug AND c.state = 'committed'
        -- By position: `version` would name the OUT column.
        ORDER BY 8 DESC
        LIMIT 1
      ) AS found;
END
$$;
