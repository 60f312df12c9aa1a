-- A link's waiting changes, in version order: what every change of the link
-- reads, with the link locked, before it answers (LinkChangeStore.publish).
-- The outbox holds only changes in flight while the event log is up, but all
-- of them while it is away: without this index each change then read the
-- whole outbox, and changes got slower the longer the log was gone.
CREATE INDEX link_change_outbox_by_slug ON link_change_outbox (slug, version);
