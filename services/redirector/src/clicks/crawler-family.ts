import type { CrawlerFamily } from '@shortlink/events';

/**
 * Clients that isbot calls bots but that are programs fetching a URL, not crawlers: counted apart as
 * `http_library`, so a customer can tell a script polling the link from a search engine. Matched only on what isbot
 * already refused: a browser never lands here.
 */
const HTTP_LIBRARY =
  /\b(?:curl|wget|python-requests|python-urllib|python-httpx|aiohttp|httpx|go-http-client|axios|node-fetch|undici|okhttp|java\/|apache-httpclient|jakarta|libwww-perl|lwp::simple|guzzlehttp|php\/|ruby|faraday|httpie|postmanruntime|insomnia|rest-client|dart\/|reqwest|powershell|winhttp|got\b|http_request|libcurl)/i;

/**
 * The crawler families told apart, first match wins: Telegram calls itself "like TwitterBot", so it comes first.
 * Each is one of CRAWLER_FAMILIES (libs/events); nothing of the user agent itself is ever kept.
 */
const FAMILIES: readonly (readonly [CrawlerFamily, RegExp])[] = [
  ['telegrambot', /telegrambot/i],
  [
    'googlebot',
    /googlebot|google-inspectiontool|googleother|adsbot-google|mediapartners-google|google-read-aloud|feedfetcher-google|apis-google|storebot-google/i,
  ],
  ['bingbot', /bingbot|bingpreview|msnbot|adidxbot/i],
  ['slackbot', /slackbot|slack-imgproxy/i],
  ['facebookexternalhit', /facebookexternalhit|facebookcatalog|facebot|meta-externalagent/i],
  ['twitterbot', /twitterbot/i],
  ['discordbot', /discordbot/i],
  ['whatsapp', /whatsapp/i],
  ['linkedinbot', /linkedinbot/i],
  ['applebot', /applebot/i],
  ['yandexbot', /yandex/i],
  ['baiduspider', /baiduspider/i],
  ['duckduckbot', /duckduckbot|duckduckgo-favicons-bot|duckassistbot/i],
  ['pinterestbot', /pinterest/i],
  ['skypeuripreview', /skypeuripreview/i],
  ['redditbot', /redditbot/i],
  [
    'ai_crawler',
    /gptbot|chatgpt-user|oai-searchbot|claudebot|claude-user|anthropic-ai|perplexitybot|ccbot|bytespider|amazonbot/i,
  ],
  ['seo_crawler', /ahrefsbot|semrushbot|mj12bot|dotbot|petalbot|rogerbot|screaming frog/i],
  ['headless_browser', /headlesschrome|phantomjs|puppeteer|playwright|selenium|lighthouse/i],
];

/**
 * What a bot's user agent is: a crawler of a known family, else an HTTP library, else a crawler of no known family
 * (`other`). A named crawler wins over the library it is built on (LinkedIn's says Apache-HttpClient).
 */
export function botKind(userAgent: string): 'http_library' | CrawlerFamily {
  for (const [family, pattern] of FAMILIES) if (pattern.test(userAgent)) return family;
  return HTTP_LIBRARY.test(userAgent) ? 'http_library' : 'other';
}
