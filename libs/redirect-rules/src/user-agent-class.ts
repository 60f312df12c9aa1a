/**
 * Device type and operating system of a User-Agent, for rules, on the redirect thread: a few substring tests, no
 * parser. The analytics' classification (ua-parser-js, in the projector) costs tens of microseconds an agent; this
 * answers only the rules' closed lists and agrees with it on the agents that matter for them (see its test table).
 * iPadOS in its default "desktop" mode sends a Mac's agent: both classify it as a Mac desktop.
 */

/** Bits of a classification: the device's in the low three, the system's above them. */
export const DEVICE_BIT = { mobile: 1, tablet: 2, desktop: 4 } as const;
export const OS_BIT = { android: 8, ios: 16, windows: 32, macos: 64, linux: 128, chromeos: 256 } as const;

const has = (text: string, part: string) => text.includes(part);

/** One number: a device bit ORed with a system bit (no system bit for another or an unknown system). */
export function classifyAgent(userAgent: string | undefined): number {
  if (userAgent === undefined || userAgent === '') return DEVICE_BIT.desktop;
  // Browsers name their platform first, in `Mozilla/5.0 (…`: read there, most agents need no search of their whole text.
  const platform = userAgent.indexOf('(') + 1;
  if (platform > 0 && platform < 16) {
    const known = byPlatform(userAgent, platform);
    if (known !== 0) return known;
  }
  return bySearch(userAgent);
}

function byPlatform(ua: string, at: number): number {
  switch (ua.charCodeAt(at)) {
    case 0x57: // W
      if (ua.startsWith('Windows NT', at)) return OS_BIT.windows | DEVICE_BIT.desktop;
      break;
    case 0x4d: // M
      if (ua.startsWith('Macintosh', at)) return OS_BIT.macos | DEVICE_BIT.desktop;
      break;
    case 0x69: // i
      if (ua.startsWith('iPhone', at) || ua.startsWith('iPod', at)) return OS_BIT.ios | DEVICE_BIT.mobile;
      if (ua.startsWith('iPad', at)) return OS_BIT.ios | DEVICE_BIT.tablet;
      break;
    case 0x4c: // L: Chrome on Android says `Linux; Android 14; …`
      if (ua.startsWith('Linux; Android', at) || ua.startsWith('Linux; U; Android', at)) return android(ua);
      break;
    case 0x41: // A: Firefox on Android says `Android 14; Mobile; …`
      if (ua.startsWith('Android', at)) return android(ua);
      break;
    case 0x58: // X
      if (ua.startsWith('X11; CrOS', at)) return OS_BIT.chromeos | DEVICE_BIT.desktop;
      break;
  }
  return 0;
}

/** Android phones say "Mobile"; tablets do not (Chrome's and Firefox's documented convention). */
const android = (ua: string) => OS_BIT.android | (has(ua, 'Mobile') ? DEVICE_BIT.mobile : DEVICE_BIT.tablet);

function bySearch(userAgent: string): number {
  // Windows Phone's agent names Android and iPhone too.
  if (has(userAgent, 'Windows Phone')) return OS_BIT.windows | DEVICE_BIT.mobile;
  if (has(userAgent, 'Android')) return android(userAgent);
  if (has(userAgent, 'iPad')) return OS_BIT.ios | DEVICE_BIT.tablet;
  if (has(userAgent, 'iPhone') || has(userAgent, 'iPod')) return OS_BIT.ios | DEVICE_BIT.mobile;
  if (has(userAgent, 'Windows')) return OS_BIT.windows | DEVICE_BIT.desktop;
  if (has(userAgent, 'CrOS')) return OS_BIT.chromeos | DEVICE_BIT.desktop;
  if (has(userAgent, 'Macintosh') || has(userAgent, 'Mac OS X')) return OS_BIT.macos | DEVICE_BIT.desktop;
  const device = has(userAgent, 'Mobi')
    ? DEVICE_BIT.mobile
    : has(userAgent, 'Tablet') || has(userAgent, 'Kindle') || has(userAgent, 'Silk')
      ? DEVICE_BIT.tablet
      : DEVICE_BIT.desktop;
  return (has(userAgent, 'Linux') || has(userAgent, 'X11') ? OS_BIT.linux : 0) | device;
}
