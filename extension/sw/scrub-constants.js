// The generated constants where the content scripts' classic scripts (content/scrub.js,
// content/gate.js) look for them, for the worker's own use of those scripts (sw/held.js).
import * as constants from '../generated/constants.mjs';

globalThis.GASOLINE_CONSTANTS = constants;
