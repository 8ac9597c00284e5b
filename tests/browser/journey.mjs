// journey.mjs: the analyst's whole journey in headless Chromium (playwright-core), printing TAP lines.
// Sign in, ask (automatic), result + chart, downloads (CSV/JSON/XLSX cells), step mode approve/edit/reject/stop,
// history find + re-run, admin prompt edit + roll back, analyst 403; screenshots in build/screenshots/.
import { chromium } from 'playwright-core';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BASE = process.env.BASE_URL;
const ADMIN_USER = process.env.ADMIN_USER;
const ADMIN_PASS = process.env.ADMIN_PASS;
const TOP = process.env.TOP || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHOTS = path.join(TOP, 'build/screenshots');
const DL = path.join(TOP, 'build/downloads');
fs.mkdirSync(SHOTS, { recursive: true });
fs.mkdirSync(DL, { recursive: true });

let n = 0, failed = 0;
function ok(cond, desc, why) {
  n++;
  if (cond) console.log(`ok ${n} - ${desc}`);
  else { failed++; console.log(`not ok ${n} - ${desc}`); if (why) console.log(`# ${String(why).split('\n')[0]}`); }
  return cond;
}
// step: run fn; an exception is one failed test with its message, never the end of the journey
async function step(desc, fn) {
  try { const r = await fn(); if (r !== false) ok(true, desc); else ok(false, desc); }
  catch (e) { ok(false, desc, e.message); }
}
async function shot(page, name) {
  try { await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true }); } catch (e) { /* best effort */ }
}
function must(cond, msg) { if (!cond) throw new Error(msg); }

if (!BASE || !ADMIN_USER || !ADMIN_PASS) {
  console.log('not ok 1 - BASE_URL, ADMIN_USER and ADMIN_PASS must be set');
  process.exit(1);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const T = 60000;
const suffix = Date.now().toString(36);
const analyst = `analyst_${suffix}`, analystPass = `pw-${suffix}-secret`;
const QUESTION = 'average heart rate by department';

async function signIn(ctx, user, pass) {
  const page = await ctx.newPage();
  page.setDefaultTimeout(T);
  await page.goto(BASE + '/');
  must(page.url().includes('/signin'), 'start page did not redirect to sign-in: ' + page.url());
  await page.fill('#name', user);
  await page.fill('#password', pass);
  await Promise.all([page.waitForURL(BASE + '/'), page.click('button[type=submit]')]);
  return page;
}

// runId: the id of the run page the browser is on
const runId = (page) => Number((page.url().match(/\/runs\/(\d+)/) || [])[1] || 0);

async function ask(page, question, mode) {
  await page.goto(BASE + '/');
  await page.fill('#question', question);
  await page.check(`input[name=mode][value=${mode}]`);
  // the form streams the steps, then sends the browser to the finished (or paused) run
  await Promise.all([page.waitForURL(/\/runs\/\d+$/, { timeout: T }), page.click('#ask button[type=submit]')]);
  return runId(page);
}

const adminCtx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const anCtx = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
let admin, an, firstRun = 0;

try {
  // ---- sign-in ----
  await step('start page sends a stranger to the sign-in page', async () => {
    const p = await adminCtx.newPage();
    await p.goto(BASE + '/');
    must(/\/signin/.test(p.url()), p.url());
    await shot(p, '01-signin');
    await p.close();
  });
  await step('admin signs in', async () => {
    admin = await signIn(adminCtx, ADMIN_USER, ADMIN_PASS);
    must(await admin.isVisible('#question'), 'no question box');
  });
  await step('admin creates an analyst on the users page', async () => {
    await admin.goto(BASE + '/admin/users');
    const form = admin.locator('form:has(input[name=action][value=add])');
    await form.locator('input[name=name]').fill(analyst);
    await form.locator('select[name=role]').selectOption('analyst');
    await form.locator('input[name=password]').fill(analystPass);
    await Promise.all([admin.waitForNavigation(), form.locator('button.primary').click()]);
    must((await admin.content()).includes(analyst), 'new user not listed');
    await shot(admin, '10-admin-users');
  });
  await step('analyst signs in and sees the start page', async () => {
    an = await signIn(anCtx, analyst, analystPass);
    must(await an.isVisible('input[name=mode][value=step]'), 'no mode choice');
    must(await an.isVisible('input[name=kind][value=react]'), 'no ReAct choice');
    await shot(an, '02-ask');
  });

  // ---- automatic run ----
  await step('ask in automatic mode: the run finishes with a result', async () => {
    firstRun = await ask(an, QUESTION, 'auto');
    must(firstRun > 0, 'no run id');
    const status = await an.getAttribute('#run', 'data-status');
    must(status === 'ok', 'status ' + status);
  });
  await step('the result table has rows, numbers right-aligned', async () => {
    const rows = await an.locator('table.data tbody tr').count();
    must(rows > 0, 'no rows');
    must(await an.locator('table.data td.num').count() > 0, 'no numeric cells');
  });
  await step('a chart is drawn (server-side SVG)', async () => {
    must(await an.locator('svg.chart:visible').count() === 1, 'no svg chart');
  });
  await step('the SQL is shown highlighted', async () => {
    must(await an.locator('pre.sql span.k').count() > 0, 'no highlighted keywords');
  });
  await shot(an, '03-run');
  await step('the table sorts by a column', async () => {
    await Promise.all([an.waitForURL(/sort=1/), an.click('table.data th:nth-child(2) a')]);
    must(await an.locator('table.data tbody tr').count() > 0, 'no rows after sort');
  });

  await step('a timeline question draws a line chart', async () => {
    const id = await ask(an, 'monthly number of surgeries', 'auto');
    must(await an.getAttribute('#run', 'data-status') === 'ok', 'status');
    must(await an.locator('svg.chart:visible polyline').count() === 1, 'no line');
    await shot(an, '03-run-timeline');
    await an.goto(`${BASE}/runs/${firstRun}`);
    return id > 0;
  });

  // ---- live progress: a run executing elsewhere streams its steps into an open page (EventSource) ----
  await step('live progress: steps of a running run appear without reloading, then the page settles', async () => {
    const sql = (q) => execFileSync('psql', ['-X', '-q', '-tA', '-d', 'askql', '-c', q]).toString().trim();
    let id, holder;
    try {
      id = Number(sql(`INSERT INTO askql.runs(user_id, question, status) SELECT id, 'live progress check', 'running'
                       FROM askql.users WHERE name = '${analyst}' RETURNING id`).split('\n')[0]);
    } catch (e) { throw new Error('psql not usable here: ' + e.message); }
    // a live "worker": a session holding the run's advisory lock, so the stale-run sweep leaves it alone
    holder = spawn('psql', ['-X', '-q', '-d', 'askql', '-c',
      `SELECT pg_advisory_lock(1634953585, ${id}); SELECT pg_sleep(60);`], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 500));
      const p = await anCtx.newPage();
      await p.goto(`${BASE}/runs/${id}`);
      must(await p.getAttribute('#run', 'data-status') === 'running', 'not running');
      sql(`INSERT INTO askql.steps(run_id, seq, kind, name, status, output)
           VALUES (${id}, 1, 'node', 'inspector', 'ok', '{"reasoning":"live step one"}')`);
      await p.waitForSelector('#step-1', { timeout: 10000 });
      must((await p.textContent('#step-1')).includes('live step one'), 'step text');
      await shot(p, '03-run-live');
      sql(`UPDATE askql.runs SET status = 'ok', answer = 'live done', finished_at = now() WHERE id = ${id}`);
      // (no waitForFunction: the page's CSP forbids the eval it needs, as it should)
      let st = '';
      for (let i = 0; i < 40 && st !== 'ok'; i++) {
        await new Promise((r) => setTimeout(r, 250));
        st = await p.getAttribute('#run', 'data-status').catch(() => '');
      }
      must(st === 'ok', 'page did not settle: ' + st);
      await p.close();
    } finally {
      holder.kill();
    }
  });

  // ---- downloads ----
  const files = {};
  for (const fmt of ['csv', 'json', 'xlsx']) {
    await step(`download ${fmt.toUpperCase()} with the extraction_ file name`, async () => {
      await an.goto(`${BASE}/runs/${firstRun}`);
      const [dl] = await Promise.all([an.waitForEvent('download'), an.click(`a[href$="format=${fmt}"]`)]);
      const name = dl.suggestedFilename();
      must(new RegExp(`^extraction_\\d{8}_\\d{6}\\.${fmt}$`).test(name), 'file name ' + name);
      files[fmt] = path.join(DL, `journey.${fmt}`);
      await dl.saveAs(files[fmt]);
      must(fs.statSync(files[fmt]).size > 0, 'empty file');
    });
  }
  await step('CSV has the header and the rows', async () => {
    const lines = fs.readFileSync(files.csv, 'utf8').replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    must(/department/.test(lines[0]), 'header ' + lines[0]);
    must(lines.length >= 3, 'lines ' + lines.length);
  });
  await step('JSON parses and carries the rows', async () => {
    const text = fs.readFileSync(files.json, 'utf8');
    const d = JSON.parse(text);
    must(JSON.stringify(d).includes('General surgery') || JSON.stringify(d).includes('surgery'), 'no department values');
  });
  await step('XLSX opens (unzip) and its cells hold the header, labels and numbers', async () => {
    const list = execFileSync('unzip', ['-l', files.xlsx]).toString();
    must(list.includes('xl/worksheets/sheet1.xml'), 'no sheet1');
    const shared = list.includes('xl/sharedStrings.xml') ? execFileSync('unzip', ['-p', files.xlsx, 'xl/sharedStrings.xml']).toString() : '';
    const sheet = execFileSync('unzip', ['-p', files.xlsx, 'xl/worksheets/sheet1.xml']).toString();
    must((shared + sheet).includes('department'), 'no header cell');
    must(/surgery/i.test(shared + sheet), 'no department labels');
    // integers are numbers; long decimals may be kept as exact text by the export layer
    must(/<c r="B\d+"[^>]*>(<v>[0-9.]+<\/v>|<is><t>[0-9.]+<\/t><\/is>)<\/c>/.test(sheet), 'no value cell in column B');
  });

  await step('a follow-up question continues the run (linked to its parent)', async () => {
    await an.goto(`${BASE}/runs/${firstRun}`);
    await an.fill('textarea[name=question][aria-label]', 'number of cases by department');
    await Promise.all([an.waitForURL((u) => /\/runs\/\d+$/.test(u.pathname) && !u.pathname.endsWith(`/${firstRun}`), { timeout: T }),
                       an.click('form:has(input[name=parent]) button.primary')]);
    must(runId(an) > firstRun, 'no new run');
    must(await an.locator(`a[href="/runs/${firstRun}"]`).count() > 0, 'no link to the parent run');
  });

  // ---- step-by-step confirmation ----
  // An answer from the query cache brings its SQL along with the plan and skips the SQL pause;
  // start the step-mode part from an empty cache so every pause shows (PGHOST etc. from the runner).
  const clearCache = () => {
    try { execFileSync('psql', ['-X', '-q', '-d', 'askql', '-c', 'DELETE FROM askql.query_cache'], { stdio: 'ignore' }); }
    catch (e) { /* without psql the test still passes through the cached path */ }
  };
  clearCache();
  let stepRun = 0;
  await step('step mode: the run pauses at the plan with its tables', async () => {
    stepRun = await ask(an, QUESTION, 'step');
    must(await an.getAttribute('#run', 'data-status') === 'paused', 'not paused');
    must(await an.isVisible('#confirm'), 'no confirmation');
    must(await an.locator('#confirm .plan code').count() > 0, 'no plan tables');
    await shot(an, '04-step-plan');
  });
  await step('step mode: approve the plan, the SQL waits for confirmation', async () => {
    // a question answered before brings its SQL along with the plan (query cache): no second pause
    if (!(await an.isVisible('#edit-sql')))
      await Promise.all([an.waitForNavigation(), an.click('#plan-form button.primary')]);
    must(await an.isVisible('#edit-sql'), 'no SQL to confirm');
    must(await an.getAttribute('#run', 'data-status') === 'paused', 'ran without confirmation');
    await shot(an, '05-step-sql');
  });
  await step('step mode: edit the SQL; it runs and is recorded as a human step', async () => {
    await an.fill('#edit-sql', 'SELECT department, count(*) AS n FROM clinical_data_table GROUP BY department ORDER BY 2 DESC');
    await Promise.all([an.waitForNavigation(), an.click('#sql-form button.primary')]);
    must(await an.getAttribute('#run', 'data-status') === 'ok', 'status ' + await an.getAttribute('#run', 'data-status'));
    must(await an.locator('li.step-human').count() >= 1, 'human steps missing');
    must(await an.locator('li.step-human[data-name=edit]').count() === 1, 'no edit step');
    must((await an.textContent('pre.sql')).includes('count'), 'edited SQL not final');
    await shot(an, '06-step-edited');
  });
  await step('step mode: edit the plan (remove a table), then reject the SQL with a comment', async () => {
    clearCache();
    const id = await ask(an, QUESTION, 'step');
    // correct the plan first: untick (drop) the last table proposed, then the SQL waits for a decision
    await an.locator('#plan-form input[name=include_table]').last().uncheck();
    await Promise.all([an.waitForNavigation(), an.click('#plan-form button.primary')]);
    must(await an.locator('li.step-human[data-name=plan_edit]').count() === 1, 'plan edit not recorded');
    if (!(await an.isVisible('#edit-sql')))
      await Promise.all([an.waitForNavigation(), an.click('#plan-form button.primary')]);
    await an.fill('#confirm input[name=comment]', 'count cases instead');
    await Promise.all([an.waitForNavigation(), an.click('#confirm button[value=reject]')]);
    must(await an.locator('li.step-human[data-name=reject]').count() === 1, 'no reject step');
    must((await an.content()).includes('count cases instead'), 'comment not shown');
  });
  await step('step mode: stop ends the run as stopped', async () => {
    const id = runId(an);
    if (await an.isVisible('#confirm button[value=stop]')) {
      await Promise.all([an.waitForNavigation(), an.click('#confirm button[value=stop]')]);
    } else {
      await ask(an, QUESTION, 'step');
      await Promise.all([an.waitForNavigation(), an.click('#confirm button[value=stop]')]);
    }
    must(await an.getAttribute('#run', 'data-status') === 'stopped', 'status ' + await an.getAttribute('#run', 'data-status'));
  });

  // ---- history ----
  await step('history finds the run by question text', async () => {
    await an.goto(`${BASE}/history?q=${encodeURIComponent('heart rate')}`);
    must(await an.locator(`a[href="/runs/${firstRun}"]`).count() > 0, 'run not found');
    await shot(an, '07-history');
  });
  await step('history finds runs by SQL text and filters by status', async () => {
    await an.goto(`${BASE}/history?q=clinical_data_table&status=ok`);
    must(await an.locator('li.hrun').count() > 0, 'nothing found');
    const badges = await an.locator('li.hrun .badge').allTextContents();
    must(badges.every((b) => b === badges[0]), 'mixed statuses');
  });
  await step('history groups identical queries', async () => {
    await an.goto(`${BASE}/history?group=1`);
    must(await an.locator('li.hrun').count() > 0, 'empty grouped history');
  });
  await step('re-run from history starts a new run', async () => {
    await an.goto(`${BASE}/history?q=${encodeURIComponent('heart rate')}&status=ok`);
    const li = an.locator('li.hrun').first();
    await Promise.all([an.waitForURL(/\/runs\/\d+$/), li.locator('button[value=rerun]').click()]);
    const id = runId(an);
    must(id > firstRun, `re-run id ${id}`);
    const st = await an.getAttribute('#run', 'data-status');
    must(st === 'ok' || st === 'paused', 'status ' + st);  // a step-mode run re-runs in step mode
  });
  await step('delete from history removes the run (then 404)', async () => {
    await an.goto(`${BASE}/history?status=stopped`);
    const li = an.locator('li.hrun').first();
    const href = await li.locator('a.q').getAttribute('href');
    // delete asks first (issue 15: the button sits in a confirmation that opens from "delete")
    await li.locator('details.hist-confirm summary').click();
    await Promise.all([an.waitForNavigation(), li.locator('button[value=delete]').click()]);
    const r = await an.goto(BASE + href);
    must(r.status() === 404, 'status ' + r.status());
  });
  await step('an analyst\'s verified mark is a proposal; an admin accepts it', async () => {
    await an.goto(`${BASE}/runs/${firstRun}`);
    if (await an.locator('button[value=verify]').count()) {
      await Promise.all([an.waitForNavigation(), an.click('button[value=verify]')]);
    }
    must(await an.locator('[data-verify=proposed]').count() === 1, 'no proposal badge');
    await admin.goto(BASE + '/admin/verified');
    const li = admin.locator(`#proposals li[data-run="${firstRun}"]`);
    must(await li.count() === 1, 'proposal not listed for the admin');
    await Promise.all([admin.waitForNavigation(), li.locator('button[value=accept]').click()]);
    await an.goto(`${BASE}/runs/${firstRun}`);
    must((await an.content()).includes('badge-ok">✓'), 'not verified after the admin accepted');
  });

  // ---- language ----
  await step('the language switch shows English and is remembered', async () => {
    await Promise.all([an.waitForNavigation(), an.click('header form[action="/lang"] button')]);
    must(await an.getAttribute('html', 'lang') === 'en', 'not English');
    await an.goto(BASE + '/history');
    must(await an.getAttribute('html', 'lang') === 'en', 'not remembered');
    await shot(an, '08-history-en');
  });

  // ---- narrow window ----
  await step('narrow window: the run page does not overflow sideways', async () => {
    const p = await anCtx.newPage();
    await p.setViewportSize({ width: 400, height: 900 });
    await p.goto(`${BASE}/runs/${firstRun}`);
    const over = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await shot(p, '09-run-narrow');
    await p.close();
    must(over <= 1, `overflow ${over}px`);
  });

  // ---- analyst on admin pages ----
  await step('an analyst gets 403 on admin pages', async () => {
    const r = await an.goto(BASE + '/admin');
    must(r.status() === 403, 'status ' + r.status());
    await shot(an, '11-analyst-403');
    const r2 = await an.goto(BASE + '/admin/prompts');
    must(r2.status() === 403, 'status ' + r2.status());
  });

  // ---- admin: prompts edit + roll back, other admin pages ----
  let before = 0, activeBefore = '';
  await step('admin edits a prompt: a new active version', async () => {
    await admin.goto(BASE + '/admin/prompts');
    await shot(admin, '12-admin-prompts');
    const link = admin.locator('table.data a').first();
    await Promise.all([admin.waitForURL(/\/admin\/prompts\/[\w.-]+$/), link.click()]);
    before = await admin.locator('tbody tr').count();
    activeBefore = (await admin.textContent('tbody tr.current td')).replace(/[^0-9]/g, '');
    const body = await admin.inputValue('textarea[name=body]');
    await admin.fill('textarea[name=body]', body + '\n<!-- journey ' + suffix + ' -->');
    await admin.fill('input[name=note]', 'journey edit');
    await Promise.all([admin.waitForNavigation(), admin.click('form:has(textarea[name=body]) button.primary')]);
    must(await admin.locator('tbody tr').count() === before + 1, 'no new version');
    must((await admin.textContent('tbody tr.current')).includes('journey edit'), 'new version not active');
  });
  await step('admin sees the diff between the versions', async () => {
    await Promise.all([admin.waitForURL(/a=\d+&b=\d+/), admin.locator('tbody tr').first().locator('a').first().click()]);
    must((await admin.locator('pre.diff ins').allTextContents()).join('\n').includes('journey ' + suffix), 'diff lacks the added line');
    await shot(admin, '13-admin-prompt-diff');
  });
  await step('admin rolls the prompt back to the previous version', async () => {
    // back to the version that was active before the edit
    const btn = admin.locator(`tbody tr:has(input[name=version][value="${activeBefore}"]) button`);
    await Promise.all([admin.waitForNavigation(), btn.click()]);
    const cur = (await admin.textContent('tbody tr.current td')).replace(/[^0-9]/g, '');
    must(cur === activeBefore, `active version ${cur}, expected ${activeBefore}`);
    must(await admin.locator('tbody tr').count() === before + 1, 'versions lost');
  });
  for (const [p, name] of [['/admin', '14-admin'], ['/admin/config', '15-admin-config'], ['/admin/catalog', '16-admin-catalog'],
                           ['/admin/verified', '17-admin-verified'], ['/admin/audit', '18-admin-audit']]) {
    await step(`admin page ${p} renders`, async () => {
      const r = await admin.goto(BASE + p);
      must(r.status() === 200, 'status ' + r.status());
      await shot(admin, name);
    });
  }
  await step('admin re-indexes the catalog and sees the outcome', async () => {
    await admin.goto(BASE + '/admin/catalog');
    await Promise.all([admin.waitForNavigation(), admin.click('button[value=reindex]')]);
    must(/notice=reindexed/.test(admin.url()), 'url ' + admin.url());
    must(await admin.locator('p[role=status]').count() === 1, 'no outcome shown');
  });
  await step('the audit log records the prompt edit and roll back', async () => {
    await admin.goto(BASE + '/admin/audit');
    const t = await admin.content();
    must(t.includes('prompt.edit') && t.includes('prompt.rollback'), 'audit entries missing');
  });
  await step('sign out ends the session', async () => {
    await Promise.all([admin.waitForURL(/\/signin/), admin.click('header form[action="/signout"] button')]);
    await admin.goto(BASE + '/history');
    must(/\/signin/.test(admin.url()), 'still signed in');
  });
} catch (e) {
  ok(false, 'journey aborted', e.message);
} finally {
  await browser.close();
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
