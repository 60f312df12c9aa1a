export {
  linkCreated,
  linkUpdated,
  linkDeleted,
  SLUG_PATTERN,
  linkPreviewFetched,
  linkPreviewFailed,
  clickRecorded,
  CLICK_TRIGGERS,
  linkEvent,
  clickEvent,
  redirectsFiltered,
  FILTER_REASONS,
  CRAWLER_FAMILIES,
  type RedirectsFiltered,
  type FilterReason,
  type CrawlerFamily,
  type LinkCreated,
  type LinkUpdated,
  type LinkDeleted,
  type LinkPreviewFetched,
  type LinkPreviewFailed,
  type ClickRecorded,
  type ClickTrigger,
  type LinkEvent,
  type ClickEvent,
} from './events';
export { envelope, envelopeOf, isoUtcMillis, type EventMeta } from './envelope';
export { createEvent, encodeEvent, decodeEvent, type DecodeResult } from './codec';
export { isStorableText, isStorableJson, storablePrefix, STORABLE_TEXT_PATTERN } from './storable-text';
export { uuidText } from './uuid-text';
export {
  encodeClickRecord,
  encodeClickLines,
  decodeClickRecord,
  CLICKS_PER_RECORD,
  type ClickLine,
} from './click-records';
export { clickRecordedJson, clickRecordedJsonOf, clickRecordedPiece } from './click-recorded-json';
