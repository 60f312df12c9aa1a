-- The list of an account's links (GET /api/v1/links) is read from the write
-- model's committed claims, as GET by slug is: a claim is committed before the
-- 201 leaves, so a link is listed as soon as its creator was told it exists.

-- Newest first, by a position taken when the claim is committed. Pages are cut
-- by this position (a keyset), so a link never moves once listed and paging
-- never skips or repeats a link. Being taken at commit, the position of a link
-- created while someone pages is (nearly always) above every position already
-- shown, so it does not surface in the middle of the later pages either, as it
-- could with created_at: a create's created_at is taken before its claim and
-- its Kafka append, and such a link may commit after later-stamped ones.
CREATE SEQUENCE slug_claims_list_seq AS bigint;
ALTER TABLE slug_claims ADD COLUMN list_seq bigint;

-- Links committed before this migration keep their creation order.
WITH ordered AS (
  SELECT slug, row_number() OVER (ORDER BY created_at, link_id) AS n
    FROM slug_claims WHERE state = 'committed'
)
UPDATE slug_claims AS s SET list_seq = o.n FROM ordered AS o WHERE s.slug = o.slug;
SELECT setval('slug_claims_list_seq', COALESCE(max(list_seq), 0) + 1, false) FROM slug_claims;

-- Every path that commits a claim (the writer, the projector, the settler, a
-- row written committed) gets its position here, in the committing statement.
CREATE FUNCTION slug_claims_take_list_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.list_seq := nextval('slug_claims_list_seq');
  RETURN NEW;
END
$$;
CREATE TRIGGER slug_claims_list_position
  BEFORE INSERT OR UPDATE OF state ON slug_claims
  FOR EACH ROW WHEN (NEW.state = 'committed' AND NEW.list_seq IS NULL)
  EXECUTE FUNCTION slug_claims_take_list_position();

-- A page is one index range: an account's links by position, optionally of one tag.
CREATE INDEX slug_claims_account_list ON slug_claims (account_id, list_seq DESC) WHERE list_seq IS NOT NULL;
CREATE INDEX slug_claims_account_tag_list ON slug_claims (account_id, tag, list_seq DESC)
  WHERE list_seq IS NOT NULL;

-- `search` is a case-insensitive substring of the slug or the destination:
-- trigram indexes answer ILIKE '%term%' without reading every link.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX slug_claims_slug_trgm ON slug_claims USING gin (slug gin_trgm_ops);
CREATE INDEX slug_claims_destination_trgm ON slug_claims USING gin (destination_url gin_trgm_ops);
