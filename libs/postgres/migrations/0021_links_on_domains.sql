-- Links on branded domains (docs/domains.md): a slug is unique per domain, so
-- a link's key (`slug` in slug_claims and links) is its slug on the
-- installation's own domain and `hostname/slug` on a branded one
-- (docs/decisions/0082-a-link-key-per-domain.md). A domain with links cannot
-- be deleted; this finds them without reading every claim.
CREATE INDEX IF NOT EXISTS slug_claims_on_domains ON slug_claims (slug text_pattern_ops)
  WHERE position('/' IN slug) > 0;
