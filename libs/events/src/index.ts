export {
  linkCreated,
  clickRecorded,
  linkEvent,
  clickEvent,
  type LinkCreated,
  type ClickRecorded,
  type LinkEvent,
  type ClickEvent,
} from './events';
export { envelopeOf, isoUtcMillis, type EventMeta } from './envelope';
export { createEvent, encodeEvent, decodeEvent, type DecodeResult } from './codec';
