// report.mjs: open critique reports in headless Chromium: form, timeline SVG, evidence links, downloads (TAP).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOP = process.env.TOP || join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BASE = process.env.BASE_URL;
const USER = process.env.ADMIN_USER, PASS = process.env.ADMIN_PASS;
const SHOTS = join(TOP, 'build', 'screenshots');
let n = 0, failed = 0, koTitle = '';
function tap(ok, desc, diag) {
  n++;
  if (!ok) failed++;
  console.log(`${ok ? 'ok' : 'not ok'} ${n} - ${desc}`);
  if (!ok && diag !== undefined) console.log('# ' + String(diag).slice(0, 500).replace(/\n/g, '\n# '));
}

if (!BASE || !USER || !PASS) {
  console.log('ok 1 - # SKIP report.mjs needs BASE_URL, ADMIN_USER and ADMIN_PASS');
  process.exit(0);
}
mkdirSync(SHOTS, { recursive: true });

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));

  await page.goto(`${BASE}/signin?next=%2Freports`);
  await page.fill('input[name="name"]', USER);
  await page.fill('input[name="password"]', PASS);
  await Promise.all([page.waitForNavigation(), page.locator('form[action="/signin"] button[type="submit"], form[action="/signin"] button').first().click()]);
  await page.goto(`${BASE}/reports`);
  tap(await page.locator('#critique-form').count() === 1, 'the reports page offers the critique form');
  // headings follow the user's language: Korean first, then English for the rest (and the screenshots)
  koTitle = await page.locator('h1').first().innerText();
  const en = page.locator('button[name="lang"][value="en"]');
  if (await en.count()) await Promise.all([page.waitForNavigation(), en.first().click()]);
  const enTitle = await page.locator('h1').first().innerText();
  tap(enTitle === 'Critique reports' && (koTitle === enTitle || koTitle === '비판 보고서'),
      `report headings in the user's language (${koTitle} / ${enTitle})`);

  // the eventful demo case
  await page.fill('#critique-form input[name="case"]', '1');
  await Promise.all([page.waitForURL(/\/reports\/\d+$/, { timeout: 30000 }), page.click('#critique-form button[type="submit"]')]);
  const url = page.url();
  tap(/\/reports\/\d+$/.test(url), 'submitting case 1 opens its report', url);
  tap((await page.locator('#summary .summary').innerText()).includes('Case 1'), 'the summary names the case');
  await page.screenshot({ path: join(SHOTS, 'report-top.png'), fullPage: false });
  const oor = await page.locator('svg.timeline circle.oor').count();
  const pts = await page.locator('svg.timeline circle.pt').count();
  tap(oor > 0 && pts > oor, `the timeline SVG marks out-of-range points (${oor} of ${pts})`);
  tap(await page.locator('svg.timeline g.series[data-name="sbp"]').count() === 1, 'the timeline has an SBP panel');
  const points = await page.locator('#critique ol.points > li').count();
  tap(points > 0, `critique points are listed (${points})`);
  // an evidence link of a critique point leads to the exact row of the structured chart
  const ev = page.locator('#critique a.ref').first();
  const href = await ev.getAttribute('href');
  await ev.click();
  const target = page.locator(`[id="${href.slice(1)}"]`);
  tap(href.startsWith('#row-') && await target.count() === 1 && page.url().endsWith(href),
      `a critique point links to its chart row (${href})`);
  const nodesRan = await page.locator('#nodes tr[data-status="ok"]').count();
  const nodesSkipped = await page.locator('#nodes tr[data-status="skipped"]').count();
  tap(nodesRan >= 15 && nodesSkipped >= 1, `nodes ran (${nodesRan}) and skipped (${nodesSkipped}) are shown`);
  const skipReason = await page.locator('#nodes tr[data-status="skipped"] td:nth-child(5)').first().innerText();
  tap(skipReason.trim().length > 0, 'each skipped node says why', skipReason);
  tap(await page.locator('#verifier table.similar tr').count() > 1, 'the verifier section shows similar cases');
  await page.screenshot({ path: join(SHOTS, 'report.png'), fullPage: false });
  await page.locator('#timeline').screenshot({ path: join(SHOTS, 'report-timeline.png') });

  // downloads
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('a.download-json')]);
  tap(/critique-report-\d+\.json$/.test(dl.suggestedFilename()), `JSON download (${dl.suggestedFilename()})`);
  const [dh] = await Promise.all([page.waitForEvent('download'), page.click('a.download-html')]);
  tap(/critique-report-\d+\.html$/.test(dh.suggestedFilename()), `standalone HTML download (${dh.suggestedFilename()})`);
  const file = join(SHOTS, 'report-download.html');
  await dh.saveAs(file);
  const sa = await ctx.newPage();
  await sa.goto('file://' + file);
  tap(await sa.locator('svg.timeline').count() === 1 && await sa.locator('#critique ol.points > li').count() === points,
      'the standalone file opens offline with the same report');
  await sa.close();

  // pasted text with a record gap: the gap is shaded and evidence links reach the text
  await page.goto(`${BASE}/reports`);
  await page.fill('#critique-form textarea[name="text"]',
    '70-year-old man, ASA 3.\n09:00 BP 118/70.\n09:05 BP 116/68.\n09:10 BP 76/40.\n09:15 phenylephrine 100 mcg given.\n' +
    '09:20 BP 84/45.\n11:00 BP 120/72.\n11:05 BP 119/70.');
  await Promise.all([page.waitForURL(/\/reports\/\d+$/, { timeout: 30000 }), page.click('#critique-form button[type="submit"]')]);
  tap(await page.locator('svg.timeline rect.gap').count() === 1, 'the record gap is shaded on the timeline');
  const marks = await page.locator('#chart mark[id^="span-"]').count();
  tap(marks >= 2, `evidence spans are marked in the chart text (${marks})`);
  const evl = page.locator('#critique a.ev[href^="#span-"]').first();
  const evHref = await evl.getAttribute('href');
  await evl.click();
  tap(page.url().endsWith(evHref) && await page.locator(`[id="${evHref.slice(1)}"]`).count() === 1,
      `a critique point links to the exact text (${evHref})`);
  await page.screenshot({ path: join(SHOTS, 'report-text.png'), fullPage: false });

  // the list shows both
  await page.goto(`${BASE}/reports`);
  tap(await page.locator('table.report-list a[href^="/reports/"]').count() >= 2, 'the reports list shows the new reports');
  tap(errors.length === 0, 'no JavaScript errors', errors.join('; '));
  // leave the user's language as it was
  const ko = page.locator('button[name="lang"][value="ko"]');
  if (koTitle === '비판 보고서' && await ko.count()) await Promise.all([page.waitForNavigation(), ko.first().click()]);
} catch (e) {
  tap(false, 'report browser test ran to the end', e.stack || e);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
