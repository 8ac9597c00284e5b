// datasources.mjs: connecting a second database in headless Chromium (playwright-core), printing TAP lines:
// Admin -> Data sources -> add, test (server version), index (progress lines, then the outcome), then
// Ask with that database chosen and see its answer on the run page; screenshots in build/screenshots/.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BASE = process.env.BASE_URL;
const ADMIN_USER = process.env.ADMIN_USER;
const ADMIN_PASS = process.env.ADMIN_PASS;
const TOP = process.env.TOP || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHOTS = path.join(TOP, 'build/screenshots');
fs.mkdirSync(SHOTS, { recursive: true });

let n = 0, failed = 0;
function ok(cond, desc, why) {
  n++;
  if (cond) console.log(`ok ${n} - ${desc}`);
  else { failed++; console.log(`not ok ${n} - ${desc}`); if (why) console.log(`# ${String(why).split('\n')[0]}`); }
  return cond;
}
async function step(desc, fn) {
  try { const r = await fn(); ok(r !== false, desc); } catch (e) { ok(false, desc, e.message); }
}
async function shot(page, name) {
  try { await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true }); } catch (e) { /* best effort */ }
}
function must(cond, msg) { if (!cond) throw new Error(msg); }
const psql = (db, sql) => execFileSync('psql', ['-X', '-q', '-tA', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', sql]).toString().trim();

if (!BASE || !ADMIN_USER || !ADMIN_PASS || !process.env.PGHOST) {
  console.log('not ok 1 - BASE_URL, ADMIN_USER, ADMIN_PASS and PGHOST must be set');
  process.exit(1);
}

// the second database: a small ward database with bilingual comments, read by askql_reader
const DB = `clinic_${Date.now().toString(36)}`;
psql('postgres', `CREATE DATABASE ${DB}`);
psql(DB, `CREATE TABLE ward (ward_id int PRIMARY KEY, ward_name text NOT NULL);
COMMENT ON TABLE ward IS 'Hospital wards (병동)';
CREATE TABLE admission (adm_id int PRIMARY KEY, ward_id int REFERENCES ward, age int, outcome text);
COMMENT ON TABLE admission IS 'Admissions (입원)';
COMMENT ON COLUMN admission.outcome IS 'Discharge outcome (퇴원 결과)';
INSERT INTO ward VALUES (1, 'Medical ICU'), (2, 'Surgical ward');
INSERT INTO admission SELECT g, 1 + g % 2, 30 + g % 50, CASE WHEN g % 9 = 0 THEN 'EXPIRED' ELSE 'DISCHARGED' END
  FROM generate_series(1, 53) g;
GRANT CONNECT ON DATABASE ${DB} TO askql_reader, askql_app;
GRANT USAGE ON SCHEMA public TO askql_reader, askql_app;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader, askql_app;`);
// the workers' password file names each database (issue 27): the operator lets them reach this one
execFileSync('bash', ['-c', '. "$TOP/scripts/lib.sh" && pgpass_allow "$VAR" "$PGPORT" "$1" askql_app askql_reader', 'allow', DB],
  { env: { ...process.env, TOP }, stdio: ['ignore', 'ignore', 'inherit'] });
// the workers index as askql_app: their password file holds no superuser's (docs/pg-auth.md)
const conn = `host=${process.env.PGHOST} port=${process.env.PGPORT} dbname=${DB} user=askql_app`;
const ro = `host=${process.env.PGHOST} port=${process.env.PGPORT} dbname=${DB} user=askql_reader`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const T = 60000;
try {
  const page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(T);
  await step('admin signs in', async () => {
    await page.goto(BASE + '/');
    await page.fill('#name', ADMIN_USER);
    await page.fill('#password', ADMIN_PASS);
    await Promise.all([page.waitForURL(BASE + '/'), page.click('button[type=submit]')]);
  });
  await step('Admin -> Data sources is reachable from the admin menu', async () => {
    await page.goto(BASE + '/admin');
    await Promise.all([page.waitForURL(/\/admin\/datasources$/), page.click('nav.subnav a[href="/admin/datasources"]')]);
    must(await page.locator('tr[data-target="demo"]').count() === 1, 'demo not listed');
  });
  await step('add the second database', async () => {
    const f = page.locator('#add-target');
    await f.locator('input[name=name]').fill(DB);
    await f.locator('input[name=conninfo]').fill(conn);
    await f.locator('input[name=ro_conninfo]').fill(ro);
    await Promise.all([page.waitForURL(/notice=add/), f.locator('button').click()]);
    must(await page.locator(`tr[data-target="${DB}"]`).count() === 1, 'new target not listed');
    await shot(page, 'datasources-added');
  });
  await step('test it: the server version and the read-only role', async () => {
    await Promise.all([page.waitForLoadState(), page.locator(`tr[data-target="${DB}"] button[value=test]`).click()]);
    await page.waitForSelector('#check .server-version');
    const v = await page.locator('#check .server-version').innerText();
    must(/^15/.test(v), 'version ' + v);
    must((await page.locator('#check').innerText()).includes('askql_reader'), 'read-only role not shown');
    await shot(page, 'datasources-tested');
  });
  await step('index it: progress lines as it goes, then the outcome', async () => {
    await page.goto(BASE + '/admin/datasources');
    await Promise.all([page.waitForURL(/\/admin\/datasources\/index$/),
      page.locator(`tr[data-target="${DB}"] form[action="/admin/datasources/index"] button`).click()]);
    await page.waitForSelector('#index-outcome', { timeout: T });
    const steps = await page.locator('#index-progress li').allInnerTexts();
    must(steps.some((s) => s.startsWith('connected to')) && steps.some((s) => s.startsWith('sampled the stored values')), 'progress: ' + steps.join(' | '));
    const out = await page.locator('#index-outcome').innerText();
    must(/2 tables/.test(out) || /· 2 /.test(out), 'outcome: ' + out);
    await shot(page, 'datasources-indexed');
  });
  await step('ask with that database chosen: its answer (53 admissions) on the run page', async () => {
    await page.goto(BASE + '/');
    await page.selectOption('#target', DB);
    await page.fill('#question', 'how many admissions are there');
    await Promise.all([page.waitForURL(/\/runs\/\d+$/, { timeout: T }), page.click('#ask button[type=submit]')]);
    await page.waitForSelector('table.data', { timeout: T });
    const cells = await page.locator('table.data td').allInnerTexts();
    must(cells.some((c) => c.trim() === '53'), 'cells: ' + cells.slice(0, 10).join(','));
    await shot(page, 'datasources-answer');
  });
  await step('the run is recorded against that database', async () => {
    const t = psql('askql', `SELECT target FROM askql.runs WHERE question = 'how many admissions are there' ORDER BY id DESC LIMIT 1`);
    must(t === DB, 'target ' + t);
  });
} catch (e) {
  ok(false, 'data sources journey aborted', e.message);
} finally {
  await browser.close();
  try {
    psql('askql', `DELETE FROM askql.targets WHERE name = '${DB}'; DELETE FROM askql.cat_targets WHERE name = '${DB}'`);
    psql('postgres', `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  } catch (e) { /* best effort */ }
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
