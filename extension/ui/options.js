// Gasoline options: the user's settings in chrome.storage.sync 'gasoline_settings'.
// The capture settings, their values and defaults are generated from Go (features/capturectl);
// this page only words them. A setting added in Go shows up here with its name as its label.
import { CAPTURE_SETTINGS as GENERATED, CAPTURE_DEFAULTS } from '../generated/constants.mjs';
import { mapOriginsOf, MAX_MAP_ORIGINS } from '../sw/settings.js';

const CAPTURE_SETTINGS = /** @type {readonly CaptureSetting[]} */ (GENERATED);

const SERVER_URL_RE = /^http:\/\/(127\.0\.0\.1|localhost):(\d{1,5})\/?$/;
/** @type {(id: string) => HTMLInputElement} */
const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
/** @type {Settings | null} */
let defaults = null;

// How each setting reads on this page: a title for a select (and its values' labels), a hint,
// or the sentence beside a checkbox.
/** @typedef {{title?: string, values?: Record<string, string>, hint?: string}} Wording */
/** @type {Record<string, Wording>} */
const WORDING = {
  log_level: {
    title: 'Console',
    values: { error: 'Errors only', warn: 'Errors and warnings', all: 'Everything' },
    hint: 'Uncaught exceptions and unhandled rejections are always captured.',
  },
  ws_mode: {
    title: 'WebSocket',
    values: { off: 'Off', lifecycle: 'Open, close and errors', messages: 'Lifecycle and message payloads' },
  },
  network_bodies: { title: 'Request and response bodies (secrets redacted)' },
  screenshot_on_error: { title: 'Screenshot on error' },
  action_replay: { title: 'User actions (clicks, typing, navigation; passwords never)' },
  ai_screenshots: { title: 'Let the AI take screenshots (password fields are blanked; only you can change this)' },
  storage_reads: { title: "Let the AI read the page's storage, cookies and IndexedDB (secrets redacted; only you can change this)" },
};

function el(tag, props, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

function buildFields() {
  const box = $('capture');
  for (const s of CAPTURE_SETTINGS) {
    /** @type {Wording} */
    const w = WORDING[s.name] || {};
    if (s.bool) {
      box.append(el('label', { className: 'check' }, el('input', { type: 'checkbox', id: s.name, name: s.name }), ` ${w.title || s.name}`));
      continue;
    }
    const select = el('select', { id: s.name, name: s.name },
      ...s.values.map((v) => el('option', { value: v, textContent: (w.values && w.values[v]) || v })));
    const field = el('div', { className: 'field' }, el('label', { className: 'title', htmlFor: s.name, textContent: w.title || s.name }), select);
    if (w.hint) field.append(el('div', { className: 'hint', textContent: w.hint }));
    box.append(field);
  }
}

function validServerURL(u) {
  const m = SERVER_URL_RE.exec(u);
  return !!m && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
}

function show(s) {
  $('server_url').value = s.server_url;
  for (const c of CAPTURE_SETTINGS) {
    if (c.bool) $(c.name).checked = !!s[c.name];
    else $(c.name).value = s[c.name];
  }
  $('server_url').classList.remove('invalid');
}

function say(text, ok) {
  $('status').textContent = text;
  $('status').className = ok ? 'ok' : 'bad';
}

async function load() {
  /** @type {SettingsView} */
  const r = await chrome.runtime.sendMessage(/** @satisfies {RuntimeMessage} */ ({ type: 'settings' }));
  defaults = { ...CAPTURE_DEFAULTS, ...r.defaults };
  show({ ...defaults, ...r.settings });
  $('sourcemap_origins').value = (r.sourcemap_origins || []).join('\n');
  showOverrides(r.overrides);
}

function showOverrides(overrides) {
  const keys = Object.keys(overrides || {}).sort();
  $('ai').hidden = keys.length === 0;
  $('ai-list').textContent = keys.map((k) => `${k}: ${overrides[k]}`).join(', ');
}

// The AI's overrides come and go while this page is open (pushed by the server): keep the notice
// current, leaving the form (the user's own settings, maybe being edited) alone.
chrome.storage.local.onChanged.addListener((changes) => {
  if (!changes.gasoline_effective) return;
  chrome.runtime.sendMessage(/** @satisfies {RuntimeMessage} */ ({ type: 'settings' })).then((r) => showOverrides(r && r.overrides), () => {});
});

buildFields();

$('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const server = $('server_url').value.trim().replace(/\/+$/, '');
  if (!validServerURL(server)) {
    $('server_url').classList.add('invalid');
    say('The server address must be http://127.0.0.1:PORT or http://localhost:PORT.', false);
    return;
  }
  $('server_url').classList.remove('invalid');
  const lines = $('sourcemap_origins').value.split('\n').map((l) => l.trim()).filter(Boolean);
  const origins = mapOriginsOf(lines);
  if (origins.length !== new Set(lines.map((l) => l.toLowerCase().replace(/\/$/, ''))).size || lines.length > MAX_MAP_ORIGINS) {
    $('sourcemap_origins').classList.add('invalid');
    say(`Source map origins: one origin a line (like https://staging.example.com, no path), at most ${MAX_MAP_ORIGINS}.`, false);
    return;
  }
  $('sourcemap_origins').classList.remove('invalid');
  const settings = { server_url: server, sourcemap_origins: origins };
  for (const c of CAPTURE_SETTINGS) settings[c.name] = c.bool ? $(c.name).checked : $(c.name).value;
  try {
    await chrome.storage.sync.set({ gasoline_settings: settings });
    say('Saved.', true);
  } catch (err) {
    say(`Could not save: ${err.message || err}`, false);
  }
});

$('reset').addEventListener('click', () => {
  if (defaults) show(defaults);
  $('sourcemap_origins').value = '';
  say('Defaults restored; press Save to keep them.', true);
});

load().catch((err) => say(`Could not load settings: ${err.message || err}`, false));
