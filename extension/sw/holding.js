// Content scripts that hold a busy page's events back (content.js batches until the page has been quiet
// for a while, issue 12) say so once a batch; the worker tells the server (tellHolding), and when the
// server asks before the AI reads (the 'flush' query), gatherHeld takes what those tabs hold, so that
// holding never hides an event from the AI.

import { tellHolding } from './channel.js';

const ASK_MS = 500; // a tab that does not answer by then keeps its batch; it goes on its own later

const holding = new Map(); // tab id → the sender of its content script's 'holding' message
let onEvents = () => {};

/** Where gathered events go: background.js's onEvents(events, sender). */
export function setEventsHandler(fn) { onEvents = fn; }

/** A content script holds events back (a runtime message {type: 'holding'} from its tab's main frame). */
export function noteHolding(sender) {
  const tab = sender.tab;
  if (!tab || typeof tab.id !== 'number' || sender.frameId !== 0) return;
  holding.set(tab.id, sender);
  tellHolding();
}

/** Asks every tab that said it holds events for them ({type: 'flush'}), and queues what they answer. */
export async function gatherHeld() {
  const asked = [...holding.values()];
  holding.clear();
  await Promise.all(asked.map(async (sender) => {
    let timer = 0;
    try {
      const answer = await Promise.race([
        chrome.tabs.sendMessage(sender.tab.id, { type: 'flush' }, { frameId: 0 }),
        new Promise((resolve) => { timer = setTimeout(resolve, ASK_MS, null); }),
      ]);
      if (answer && Array.isArray(answer.events) && answer.events.length) await onEvents(answer.events, sender);
    } catch (_) { /* the tab is gone or navigated: what it held went with its leaving */ } finally {
      clearTimeout(timer);
    }
  }));
}
