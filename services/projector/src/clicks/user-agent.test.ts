import { classifyUserAgent } from './user-agent';

const UA = {
  chromeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  safariMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
  androidWebView:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.81 Mobile Safari/537.36',
  firefoxAndroid: 'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.70',
  smartTv:
    'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
  playstation:
    'Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15',
};

describe('classifyUserAgent', () => {
  it.each([
    ['chromeWindows', 'desktop', 'Chrome', 'Windows'],
    ['firefoxLinux', 'desktop', 'Firefox', 'Linux'],
    ['safariMac', 'desktop', 'Safari', 'Mac OS'],
    ['iphone', 'mobile', 'Safari', 'iOS'],
    ['ipad', 'tablet', 'Safari', 'iOS'],
    ['android', 'mobile', 'Chrome', 'Android'],
    ['androidWebView', 'mobile', 'Chrome', 'Android'],
    ['firefoxAndroid', 'mobile', 'Firefox', 'Android'],
    ['edge', 'desktop', 'Edge', 'Windows'],
  ] as const)('%s → %s / %s / %s', (name, device, browser, os) => {
    expect(classifyUserAgent(UA[name])).toEqual({ device, browser, os });
  });

  it('keeps other device types under their own names', () => {
    expect(classifyUserAgent(UA.smartTv).device).toBe('smarttv');
    expect(classifyUserAgent(UA.playstation).device).toBe('console');
  });

  it('answers Unknown rather than nothing for an unrecognised agent', () => {
    expect(classifyUserAgent('SomethingNew/1.0')).toEqual({ device: 'desktop', browser: 'Unknown', os: 'Unknown' });
  });
});
