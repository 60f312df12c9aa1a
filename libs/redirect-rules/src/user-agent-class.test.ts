import { classifyAgent, DEVICE_BIT, OS_BIT } from './user-agent-class';

const named = (bits: number) => [
  Object.entries(DEVICE_BIT).find(([, bit]) => bits & bit)?.[0],
  Object.entries(OS_BIT).find(([, bit]) => bits & bit)?.[0] ?? 'other',
];

// Each row agrees with ua-parser-js (the analytics' classifier) on the same agent.
const AGENTS: [string, string, string][] = [
  [
    'iPhone Safari',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    'mobile/ios',
  ],
  [
    'iPad Safari',
    'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
    'tablet/ios',
  ],
  [
    'Android phone Chrome',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
    'mobile/android',
  ],
  [
    'Android tablet Chrome',
    'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'tablet/android',
  ],
  ['Android Firefox', 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0', 'mobile/android'],
  [
    'Kindle Silk',
    'Mozilla/5.0 (Linux; U; Android 4.0.3; en-us; KFTT Build/IML74K) AppleWebKit/537.36 (KHTML, like Gecko) Silk/3.68 like Chrome/39.0.2171.93 Safari/537.36',
    'tablet/android',
  ],
  [
    'Instagram in-app',
    'Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.0.0 Mobile Safari/537.36 Instagram 300.0',
    'mobile/android',
  ],
  [
    'Windows Chrome',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'desktop/windows',
  ],
  [
    'Windows Phone',
    'Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/52.0.2743.116 Mobile Safari/537.36 Edge/15.15063',
    'mobile/windows',
  ],
  [
    'Mac Safari',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
    'desktop/macos',
  ],
  ['Linux Firefox', 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', 'desktop/linux'],
  [
    'Chromebook',
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'desktop/chromeos',
  ],
  ['no agent', '', 'desktop/other'],
  ['curl', 'curl/8.5.0', 'desktop/other'],
];

describe('classifyAgent', () => {
  it.each(AGENTS)(
    'given %s, when classified, then its device and system are the analytics’ own',
    (_, agent, expected) => {
      expect(named(classifyAgent(agent)).join('/')).toBe(expected);
    },
  );
});
