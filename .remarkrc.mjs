// @ts-check
/** `npm run docs:links`: every relative link and heading anchor in the Markdown resolves. */
import path from 'node:path';
import remarkValidateLinks from 'remark-validate-links';

/** The API contract lives beside the clone (`../shared/spec/`), outside this repository: not checked. */
const SHARED = path.resolve(import.meta.dirname, '..', 'shared') + path.sep;
const escapeRegExp = (/** @type {string} */ text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export default {
  plugins: [
    [
      remarkValidateLinks,
      {
        // No Git host to ask: web URLs are not checked and nothing leaves the machine.
        repository: false,
        // GitHub's anchors: `#heading` slugs, and `#L12` lines of a source file.
        urlConfig: { headingPrefix: '#', lines: true },
        skipPathPatterns: [new RegExp(`^${escapeRegExp(SHARED)}`)],
      },
    ],
  ],
};
