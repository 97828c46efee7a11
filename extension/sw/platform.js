// The one per-browser module: what the worker may use differs between Chrome (an extension service
// worker with chrome.debugger) and Firefox (an event page, no chrome.debugger). extension.Write
// rewrites this file for a Firefox build (PlatformModule), so keep it a single constant.
/** @type {'chrome' | 'firefox'} */
export const BROWSER = 'chrome';
