import { qrScanUrl, takeQrScanMarker } from './qr-scan-marker';

describe('the QR scan marker', () => {
  it('is encoded after the short URL', () => {
    expect(qrScanUrl('https://sho.rt/summer')).toBe('https://sho.rt/summer?qr=1');
  });

  it('is taken out of a scan, wherever it stands, and the rest of the query kept in order', () => {
    expect(takeQrScanMarker('/summer?qr=1')).toEqual({ url: '/summer', scanned: true });
    expect(takeQrScanMarker('/summer?utm_source=x&qr=1')).toEqual({ url: '/summer?utm_source=x', scanned: true });
    expect(takeQrScanMarker('/summer?qr=1&a=1&b=2')).toEqual({ url: '/summer?a=1&b=2', scanned: true });
    expect(takeQrScanMarker('/summer?a=1&qr=1&qr=1')).toEqual({ url: '/summer?a=1', scanned: true });
    expect(takeQrScanMarker('/summer?qr=1#top')).toEqual({ url: '/summer#top', scanned: true });
  });

  it('leaves every other URL alone: no query, another qr value, a longer name, the fragment', () => {
    for (const url of [
      '/summer',
      '/summer?',
      '/summer?qr=10',
      '/summer?qr=0',
      '/summer?xqr=1',
      '/summer?qr',
      '/summer?a=qr=1',
      '/summer#qr=1',
      '/summer?a=1#qr=1',
      '/summer#x?qr=1',
    ]) {
      expect(takeQrScanMarker(url)).toEqual({ url, scanned: false });
    }
  });
});
