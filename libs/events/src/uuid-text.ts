/** 16 bytes as a UUID's text: lower-case hex in groups of 8-4-4-4-12, as the events' ids are written. */
export function uuidText(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
