// Opens a HAR written by generate{format:"har"} the way two consumers do: validates it against
// the HAR 1.2 schema (ajv + har-schema, as har-validator does), then replays it with Playwright's
// page.routeFromHAR and runs finder.html's search on the replayed API.
// Usage: node har-replay.cjs <file.har> <site origin> <city>; CHROMIUM names the browser.
'use strict';
const fs = require('fs');
const Ajv = require('ajv');
const schemas = require('har-schema');
const { chromium } = require('@playwright/test');

async function main() {
  const [harPath, site, city] = process.argv.slice(2);
  const ajv = new Ajv({ allErrors: true });
  ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-06.json'));
  for (const s of Object.values(schemas)) ajv.addSchema(s);
  const valid = ajv.getSchema('har.json#');
  if (!valid(JSON.parse(fs.readFileSync(harPath, 'utf8')))) {
    throw new Error('not HAR 1.2: ' + ajv.errorsText(valid.errors));
  }
  console.log('schema: valid HAR 1.2');

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    await page.routeFromHAR(harPath, { url: '**/api/**', notFound: 'abort' });
    await page.goto(site + '/finder.html');
    await page.fill('#city', city);
    await page.click('button[type=submit]');
    const result = page.getByTestId('result');
    await result.filter({ hasText: /\S/ }).waitFor({ timeout: 5000 });
    console.log('replayed: ' + (await result.textContent()));
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(String((err && err.stack) || err));
  process.exit(1);
});
