// Loads graphmem's GraphiQL page in headless Chromium, runs a query from it, takes a
// screenshot, and fails if the page asked for anything outside the server, logged an error,
// or did not show the query's result. Run by ./browser-check, which starts the server.
//
//   node check.mjs URL SCREENSHOT [TOKEN]
//
// URL is the server's /graphql. With TOKEN, the page is first shown to fail without it
// (401), then the token is typed into GraphiQL's headers editor, as a user would.
// Chromium: $CHROMIUM or /usr/bin/chromium (Debian's `chromium` package), run with no
// sandbox (as root in a container), no GPU, no background or component networking, and a
// host resolver that resolves no name but 127.0.0.1, where the server is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';

const [url, screenshot, token] = process.argv.slice(2);
if (!url || !screenshot) {
  console.error('usage: node check.mjs URL SCREENSHOT [TOKEN]');
  process.exit(2);
}
const origin = new URL(url).origin;
const outside = []; // requests for anything but the server (aborted)
const problems = []; // console errors, page errors, failed requests

const profile = mkdtempSync(join(tmpdir(), 'graphiql-check-'));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  userDataDir: profile,
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  ],
  defaultViewport: { width: 1400, height: 800 },
});

const RESULT = `(document.querySelector('.result-window .CodeMirror')?.CodeMirror?.getValue() ?? '')`;

async function run(page) {
  await page.click('.graphiql-execute-button');
  await page.waitForFunction(`${RESULT}.includes('"data"') || ${RESULT}.includes('"errors"')`,
    { timeout: 30_000 });
  return JSON.parse(await page.evaluate(RESULT));
}

try {
  const page = await browser.newPage();
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const target = request.url();
    if (target.startsWith('data:') || new URL(target).origin === origin) {
      request.continue();
    } else {
      outside.push(target);
      request.abort();
    }
  });
  page.on('console', (message) => {
    const expected401 = token && message.text().includes('401');
    if (message.type() === 'error' && !expected401) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    if (!outside.includes(request.url())) problems.push(`failed: ${request.url()}`);
  });

  const response = await page.goto(url, { waitUntil: 'networkidle0', timeout: 60_000 });
  if (!response.ok()) throw new Error(`${url}: HTTP ${response.status()}`);
  await page.waitForSelector('.graphiql-execute-button', { timeout: 30_000 });

  if (token) {
    const refused = await run(page);
    if (refused.errors?.[0]?.extensions?.code !== 'UNAUTHENTICATED') {
      throw new Error(`without the token: ${JSON.stringify(refused)}`);
    }
    console.log('without a token: UNAUTHENTICATED, as expected');
    await page.evaluate(`[...document.querySelectorAll('.graphiql-editor-tools button')]
      .find((b) => b.textContent.trim() === 'Headers').click()`);
    await page.waitForFunction(`document.querySelector('.graphiql-editor-tool .CodeMirror')`);
    await page.evaluate(`[...document.querySelectorAll('.graphiql-editor-tool .CodeMirror')]
      .at(-1).CodeMirror.setValue(${JSON.stringify(JSON.stringify({ Authorization: `Bearer ${token}` }))})`);
  }

  const result = await run(page);
  console.log(`result: ${JSON.stringify(result)}`);
  // the schema (introspection) through the page: re-fetched, then shown by the docs explorer
  await page.click('button[aria-label="Re-fetch GraphQL schema"]');
  await page.click('button[aria-label="Show Documentation Explorer"]');
  await page.waitForFunction(`document.querySelector('.graphiql-doc-explorer')
    ?.innerText.includes('Root Types')`, { timeout: 30_000 });
  console.log('schema: loaded (the docs explorer lists the root types)');
  await page.screenshot({ path: screenshot });
  console.log(`screenshot: ${screenshot}`);
  if (!result.data?.health?.reachable) problems.push(`query failed: ${JSON.stringify(result)}`);
  const html = await page.evaluate(`document.querySelector('.graphiql-container') !== null`);
  if (!html) problems.push('no GraphiQL container on the page');
} catch (error) {
  problems.push(String(error));
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}

for (const target of outside) console.error(`outside request (blocked): ${target}`);
for (const problem of problems) console.error(problem);
if (outside.length || problems.length) process.exit(1);
console.log('GraphiQL rendered and ran a query with nothing loaded from outside the server');
