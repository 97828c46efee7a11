// Gasoline options: the user's settings in chrome.storage.sync 'gasoline_settings'.
// Defaults come from the service worker, the one place they are defined.
'use strict';

const SERVER_URL_RE = /^http:\/\/(127\.0\.0\.1|localhost):(\d{1,5})\/?$/;
const SELECTS = ['log_level', 'ws_mode'];
const CHECKS = ['network_bodies', 'screenshot_on_error', 'action_replay'];
const $ = (id) => document.getElementById(id);
let defaults = null;

function validServerURL(u) {
  const m = SERVER_URL_RE.exec(u);
  return !!m && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
}

function show(s) {
  $('server_url').value = s.server_url;
  for (const k of SELECTS) $(k).value = s[k];
  for (const k of CHECKS) $(k).checked = !!s[k];
  $('server_url').classList.remove('invalid');
}

function say(text, ok) {
  $('status').textContent = text;
  $('status').className = ok ? 'ok' : 'bad';
}

async function load() {
  const r = await chrome.runtime.sendMessage({ type: 'settings' });
  defaults = r.defaults;
  show({ ...r.defaults, ...r.settings });
  showOverrides(r.overrides);
}

function showOverrides(overrides) {
  const keys = Object.keys(overrides || {}).sort();
  $('ai').hidden = keys.length === 0;
  $('ai-list').textContent = keys.map((k) => `${k}: ${overrides[k]}`).join(', ');
}

// The AI's overrides come and go while this page is open (pushed by the server): keep the notice
// current, leaving the form (the user's own settings, maybe being edited) alone.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== 'local' || !changes.gasoline_effective) return;
  chrome.runtime.sendMessage({ type: 'settings' }).then((r) => showOverrides(r && r.overrides), () => {});
});

$('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const server = $('server_url').value.trim().replace(/\/+$/, '');
  if (!validServerURL(server)) {
    $('server_url').classList.add('invalid');
    say('The server address must be http://127.0.0.1:PORT or http://localhost:PORT.', false);
    return;
  }
  $('server_url').classList.remove('invalid');
  const settings = { server_url: server };
  for (const k of SELECTS) settings[k] = $(k).value;
  for (const k of CHECKS) settings[k] = $(k).checked;
  try {
    await chrome.storage.sync.set({ gasoline_settings: settings });
    say('Saved.', true);
  } catch (err) {
    say(`Could not save: ${err.message || err}`, false);
  }
});

$('reset').addEventListener('click', () => {
  if (defaults) show(defaults);
  say('Defaults restored; press Save to keep them.', true);
});

load().catch((err) => say(`Could not load settings: ${err.message || err}`, false));
