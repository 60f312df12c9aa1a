/**
 * The API key the user signed in with: in this tab's sessionStorage only (never a cookie, a URL or a log), gone
 * when the tab closes or on "Sign out".
 */
const STORAGE_KEY = 'shortlink.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(STORAGE_KEY),
  signIn: (key: string): void => sessionStorage.setItem(STORAGE_KEY, key),
  signOut: (): void => sessionStorage.removeItem(STORAGE_KEY),
};
