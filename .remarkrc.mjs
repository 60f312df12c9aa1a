// @ts-check
/** `npm run docs:links`: every relative link and heading anchor in the Markdown resolves. */
import path from 'node:path';
import remarkValidateLinks from 'remark-validate-links';

/** The API contract lives beside the clone (`../shared/spec/`), outside this repository. */
const SHARED = path.resolve(import.meta.dirname, '..', 'shared') + path.sep;
const escapeRegExp = (/** @type {string} */ text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export default {
  plugins: [
    // `repository: false`: no Git host to ask, so full URLs are left alone and nothing leaves the machine.
    [remarkValidateLinks, { repository: false, skipPathPatterns: [new RegExp(`^${escapeRegExp(SHARED)}`)] }],
  ],
};
