export { linkResource, type LinkResource, type LinkFacts } from './link-resource';
export { linkResponseProperties, linkSchema, LINK_EXAMPLE, LINK_RESPONSE_FIELDS, routingSchema } from './link-schema';
export { INVALID_DOMAIN, LINK_NOT_FOUND, LINK_NOT_SETTLED, linkNotFound } from './link-errors';
export { linkDomainOf, linkKeyOf, LINK_QUERYSTRING } from './link-address';
export { QR_SCAN_PARAMETER, qrScanUrl, takeQrScanMarker } from './qr-scan-marker';
