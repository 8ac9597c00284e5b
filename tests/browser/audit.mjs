// audit.mjs: Admin -> Audit -> Data access in headless Chromium, in Korean and English, at 390 px and on a desktop:
// the admin asks a question and opens its result, then the log lists that run and that page view with the columns
// read and their class; the filters (user, class, date) narrow it; the CSV export downloads; the tabs lead back to the
// admin actions; nothing scrolls sideways on a phone; an analyst is refused.
// Screenshots build/screenshots/audit-<what>-<lang>-<width>.png.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BASE, ADMIN_USER, ADMIN_PASS, PHONE, DESKTOP, LANGS, step, must, shot, requireEnv, launch, context,
         signIn, setLang, overflow, addUser, ask, finish } from './lib.mjs';

requireEnv();
const browser = await launch();
const stamp = Date.now().toString(36);

// texts a user reads, per language (conf/i18n/*.audit.json)
const TXT = {
  ko: { tab: '데이터 접근', actions: '관리 작업', run: 'SQL 실행', view: '결과 조회', quasi: '준식별자', empty: '이 조건에 맞는', csv: 'CSV로 내보내기' },
  en: { tab: 'Data access', actions: 'Admin actions', run: 'SQL executed', view: 'Result viewed', quasi: 'quasi-identifier', empty: 'No data access matches', csv: 'Export as CSV' },
};

async function noOverflow(page, vp, what) {
  if (vp !== PHONE) return;
  const o = await overflow(page);
  must(o <= 1, `${what}: page is ${o}px wider than the 390 px window`);
}

let runId = 0;
for (const vp of [PHONE, DESKTOP]) {
  const ctx = await context(browser, vp);
  let page;
  await step(`${vp.width}px: admin signs in`, async () => { page = await signIn(ctx, ADMIN_USER, ADMIN_PASS); });
  for (const lang of LANGS) {
    const t = TXT[lang], tag = `${lang}-${vp.width}`;

    await step(`${tag}: a question asked and its result opened are both in the data access log, in ${lang}`, async () => {
      await setLang(page, lang);
      runId = await ask(page, '부서별 평균 나이');
      must(runId > 0, 'no run');
      await page.goto(BASE + '/admin/audit');
      await Promise.all([page.waitForNavigation(), page.click(`.audit-tabs a[href="/admin/audit/access"]`)]);
      must((await page.textContent('.audit-tabs .current')).trim() === t.tab, 'current tab ' + await page.textContent('.audit-tabs .current'));
      const entries = page.locator(`.access-entry:has(a[href="/runs/${runId}"])`);
      const texts = await entries.allTextContents();
      must(texts.some((x) => x.includes(t.run)), `no "${t.run}" entry for run ${runId}`);
      must(texts.some((x) => x.includes(t.view)), `no "${t.view}" entry for run ${runId}`);
      must(texts.some((x) => x.includes(t.quasi)), `no ${t.quasi} class on run ${runId}'s entries`);
      must(texts.some((x) => x.includes('age')), 'the column age is not listed');
      await noOverflow(page, vp, 'log');
      await shot(page, `audit-access-${tag}`);
    });

    await step(`${tag}: the SQL opens under its entry and still fits the window`, async () => {
      const first = page.locator('.access-entry details.access-sql').first();
      await first.locator('summary').click();
      must(await first.locator('pre').isVisible(), 'SQL not shown');
      await noOverflow(page, vp, 'SQL opened');
      await shot(page, `audit-sql-${tag}`);
    });

    await step(`${tag}: filters by user and class narrow the log; a date before today empties it`, async () => {
      await page.fill('input[name=user]', ADMIN_USER);
      await page.selectOption('select[name=class]', 'quasi');
      await Promise.all([page.waitForNavigation(), page.click('form.access-filters button.primary')]);
      const who = await page.$$eval('.access-entry .access-who', (es) => es.map((e) => e.textContent));
      must(who.length > 0 && who.every((w) => w === ADMIN_USER), 'users ' + [...new Set(who)].join(','));
      const cls = await page.$$eval('.access-entry', (es) => es.every((e) => e.querySelector('.access-class-quasi')));
      must(cls, 'an entry without a quasi-identifier column');
      must(page.url().includes('class=quasi') && page.url().includes('user=' + ADMIN_USER), 'url ' + page.url());
      await noOverflow(page, vp, 'filtered');
      await shot(page, `audit-filtered-${tag}`);
      await page.fill('input[name=to]', '2000-01-01');
      await Promise.all([page.waitForNavigation(), page.click('form.access-filters button.primary')]);
      must(await page.locator('.access-entry').count() === 0, 'entries before 2000');
      must((await page.textContent('#access-empty')).includes(t.empty), 'no empty notice');
    });

    await step(`${tag}: the CSV export downloads the filtered log`, async () => {
      await page.goto(BASE + `/admin/audit/access?user=${ADMIN_USER}`);
      must((await page.textContent('#access-csv')).trim() === t.csv, 'csv link ' + await page.textContent('#access-csv'));
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#access-csv')]);
      must(dl.suggestedFilename() === 'access_audit.csv', 'file ' + dl.suggestedFilename());
      const f = path.join(os.tmpdir(), `audit-${stamp}-${tag}.csv`);
      await dl.saveAs(f);
      const text = fs.readFileSync(f, 'utf8');
      fs.rmSync(f, { force: true });
      must(text.split('\n')[0].includes('sql_fingerprint'), 'header ' + text.split('\n')[0]);
      must(text.includes(`"${ADMIN_USER}"`), 'no entry of the admin');
    });

    await step(`${tag}: the admin actions tab is one click away`, async () => {
      await Promise.all([page.waitForNavigation(), page.click('.audit-tabs a[href="/admin/audit"]')]);
      must((await page.textContent('.audit-tabs .current')).trim() === t.actions, 'current tab');
      await noOverflow(page, vp, 'actions');
      await shot(page, `audit-actions-${tag}`);
    });
  }
  await ctx.close();
}

await step('an analyst cannot reach the data access log (403)', async () => {
  const user = `auditan_${stamp}`, pass = `pw-${stamp}-secret`;
  addUser(user, 'analyst', pass);
  const actx = await context(browser, DESKTOP);
  const an = await signIn(actx, user, pass);
  let r = await an.goto(BASE + '/admin/audit/access');
  must(r.status() === 403, 'status ' + r.status());
  r = await an.goto(BASE + '/admin/audit/access/export');
  must(r.status() === 403, 'export status ' + r.status());
  await actx.close();
});

await browser.close();
finish();
